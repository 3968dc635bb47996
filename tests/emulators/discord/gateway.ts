/**
 * The emulated gateway: plain JSON frames over `ws` (no zlib). HELLO on connect, HEARTBEAT
 * answered with ACK, IDENTIFY checked (token → 4004, MESSAGE_CONTENT not allowed → 4014) and
 * answered with READY then GUILD_CREATE, RESUME replaying what a session missed.
 * Dispatches follow the session's intents, including Discord's MESSAGE_CONTENT rule.
 * https://discord.com/developers/docs/events/gateway
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayCloseCodes, GatewayIntentBits, GatewayOpcodes } from 'discord-api-types/v10';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { guildCreatePayload, readyPayload } from './payloads.js';
import type { Recorder } from './records.js';
import type { EmulatorState } from './state.js';

/** Interval announced in HELLO; Discord's current value. */
export const HEARTBEAT_INTERVAL_MS = 41_250;
/** Dispatches kept per session for RESUME. */
const REPLAY_BUFFER_SIZE = 1000;

interface DispatchFrame {
  op: GatewayOpcodes.Dispatch;
  t: string;
  s: number;
  d: unknown;
}

interface Session {
  id: string;
  intents: number;
  sequence: number;
  buffer: DispatchFrame[];
  socket: WebSocket | undefined;
}

/** Settings the gateway needs. */
export interface GatewaySettings {
  state: EmulatorState;
  recorder: Recorder;
  botToken: string;
  messageContentIntentAllowed: boolean;
  manageWebhooks: boolean;
  /** The public gateway URL (known once the HTTP server listens). */
  url: () => string;
}

/** The gateway as the emulator drives it. */
export interface Gateway {
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends a dispatch to every identified session whose intents allow it. */
  dispatch(event: string, data: unknown): void;
  /** Closes every open gateway socket with `code`; resolves once they are closed. */
  disconnect(code: number): Promise<void>;
  openSockets(): number;
  close(): Promise<void>;
}

/** Creates the gateway; attach `handleUpgrade` to the HTTP server's `upgrade` event. */
export function createGateway(settings: GatewaySettings): Gateway {
  const { state, recorder } = settings;
  const server = new WebSocketServer({ noServer: true });
  const sessions = new Map<string, Session>();
  const sockets = new Set<WebSocket>();
  const socketSessions = new WeakMap<WebSocket, Session>();

  const send = (socket: WebSocket, frame: unknown): void => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
  };

  const emit = (session: Session, event: string, data: unknown): void => {
    const adapted = adaptForSession(state, session.intents, event, data);
    if (adapted === undefined) return;
    session.sequence += 1;
    const frame: DispatchFrame = { op: GatewayOpcodes.Dispatch, t: event, s: session.sequence, d: adapted };
    session.buffer.push(frame);
    if (session.buffer.length > REPLAY_BUFFER_SIZE) session.buffer.shift();
    if (session.socket) send(session.socket, frame);
  };

  const identify = (socket: WebSocket, data: Record<string, unknown>): void => {
    const intents = typeof data['intents'] === 'number' ? data['intents'] : Number.NaN;
    if (data['token'] !== settings.botToken) return socket.close(GatewayCloseCodes.AuthenticationFailed, 'Authentication failed.');
    if (!Number.isInteger(intents) || intents < 0) return socket.close(GatewayCloseCodes.InvalidIntents, 'Invalid intent(s).');
    if ((intents & GatewayIntentBits.MessageContent) !== 0 && !settings.messageContentIntentAllowed) {
      return socket.close(GatewayCloseCodes.DisallowedIntents, 'Disallowed intent(s).');
    }
    const session: Session = { id: randomBytes(16).toString('hex'), intents, sequence: 0, buffer: [], socket };
    sessions.set(session.id, session);
    socketSessions.set(socket, session);
    recorder.gateway.push({ kind: 'identify', sessionId: session.id, intents, at: Date.now() });
    emit(session, 'READY', readyPayload(state, session.id, settings.url()));
    emit(session, 'GUILD_CREATE', guildCreatePayload(state, settings.manageWebhooks));
    recorder.changed();
  };

  const resume = (socket: WebSocket, data: Record<string, unknown>): void => {
    const session = typeof data['session_id'] === 'string' ? sessions.get(data['session_id']) : undefined;
    if (!session || data['token'] !== settings.botToken) {
      send(socket, { op: GatewayOpcodes.InvalidSession, d: false });
      return;
    }
    if (session.socket && session.socket !== socket) session.socket.close(GatewayCloseCodes.SessionTimedOut);
    session.socket = socket;
    socketSessions.set(socket, session);
    const seq = typeof data['seq'] === 'number' ? data['seq'] : 0;
    for (const frame of session.buffer) if (frame.s > seq) send(socket, frame);
    recorder.gateway.push({ kind: 'resume', sessionId: session.id, intents: session.intents, at: Date.now() });
    emit(session, 'RESUMED', {});
    recorder.changed();
  };

  const onFrame = (socket: WebSocket, raw: RawData): void => {
    let frame: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw.toString());
      if (typeof parsed !== 'object' || parsed === null) throw new TypeError('frame is not an object');
      frame = parsed as Record<string, unknown>;
    } catch {
      // An undecodable frame is the client's bug: Discord closes with 4002, and so do we.
      socket.close(GatewayCloseCodes.DecodeError, 'Error while decoding payload.');
      return;
    }
    const data = typeof frame['d'] === 'object' && frame['d'] !== null ? (frame['d'] as Record<string, unknown>) : {};
    const session = socketSessions.get(socket);
    switch (frame['op']) {
      case GatewayOpcodes.Heartbeat:
        return send(socket, { op: GatewayOpcodes.HeartbeatAck });
      case GatewayOpcodes.Identify:
        if (session) return socket.close(GatewayCloseCodes.AlreadyAuthenticated, 'Already authenticated.');
        return identify(socket, data);
      case GatewayOpcodes.Resume:
        return resume(socket, data);
      case GatewayOpcodes.PresenceUpdate:
      case GatewayOpcodes.VoiceStateUpdate:
      case GatewayOpcodes.RequestGuildMembers:
        if (!session) socket.close(GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
        return;
      default:
        socket.close(GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
    }
  };

  server.on('connection', (socket: WebSocket) => {
    sockets.add(socket);
    recorder.gateway.push({ kind: 'connect', at: Date.now() });
    socket.on('message', (raw) => onFrame(socket, raw));
    socket.on('close', (code) => {
      sockets.delete(socket);
      const session = socketSessions.get(socket);
      if (session?.socket === socket) session.socket = undefined;
      recorder.gateway.push({ kind: 'close', sessionId: session?.id, code, at: Date.now() });
      recorder.changed();
    });
    send(socket, { op: GatewayOpcodes.Hello, d: { heartbeat_interval: HEARTBEAT_INTERVAL_MS } });
    recorder.changed();
  });

  const closeAll = async (code: number): Promise<void> => {
    const open = [...sockets];
    await Promise.all(
      open.map(
        (socket) =>
          new Promise<void>((resolve) => {
            if (socket.readyState === socket.CLOSED) return resolve();
            socket.once('close', () => resolve());
            socket.close(code);
            // A peer that never answers the close frame must not hold the emulator open.
            setTimeout(() => socket.terminate(), 1000).unref();
          }),
      ),
    );
  };

  return {
    handleUpgrade(request, socket, head) {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname.replace(/\/+$/, '') !== '/gateway') {
        socket.destroy();
        return;
      }
      server.handleUpgrade(request, socket, head, (ws) => {
        if (url.searchParams.get('encoding') === 'etf') {
          ws.close(GatewayCloseCodes.DecodeError, 'Only JSON encoding is emulated.');
          return;
        }
        server.emit('connection', ws, request);
      });
    },
    dispatch(event, data) {
      for (const session of sessions.values()) emit(session, event, data);
      recorder.changed();
    },
    disconnect: closeAll,
    openSockets: () => sockets.size,
    async close() {
      await closeAll(1001);
      sessions.clear();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

const GUILD_EVENTS = new Set(['THREAD_CREATE', 'THREAD_UPDATE', 'THREAD_DELETE', 'CHANNEL_CREATE', 'CHANNEL_UPDATE', 'CHANNEL_DELETE']);
const MESSAGE_EVENTS = new Set(['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE']);

/**
 * Applies intents to one dispatch: `undefined` when the session did not ask for it; message
 * content emptied when MESSAGE_CONTENT is missing and the message neither comes from the bot,
 * mentions it, nor is a DM (as Discord does).
 */
function adaptForSession(state: EmulatorState, intents: number, event: string, data: unknown): unknown {
  if (GUILD_EVENTS.has(event)) return (intents & GatewayIntentBits.Guilds) !== 0 ? data : undefined;
  if (!MESSAGE_EVENTS.has(event) || typeof data !== 'object' || data === null) return data;
  const message = data as Record<string, unknown>;
  const channel = state.channels.get(String(message['channel_id']));
  const isDm = channel?.kind === 'dm';
  const needed = isDm ? GatewayIntentBits.DirectMessages : GatewayIntentBits.GuildMessages;
  if ((intents & needed) === 0) return undefined;
  if (event === 'MESSAGE_DELETE' || (intents & GatewayIntentBits.MessageContent) !== 0 || isDm) return data;
  const author = message['author'] as { id?: unknown } | undefined;
  const mentions = Array.isArray(message['mentions']) ? (message['mentions'] as { id?: unknown }[]) : [];
  if (author?.id === state.botUserId || mentions.some((user) => user.id === state.botUserId)) return data;
  return { ...message, content: '', embeds: [], attachments: [], components: [] };
}
