/**
 * The Socket Mode side of the emulator (https://docs.slack.dev/apis/events-api/using-socket-mode):
 * single-use tickets from apps.connections.open, the `hello` greeting, envelopes sent to the newest
 * connection, acks matched by envelope id and timed, `disconnect` messages, and a clean close.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import type { SocketEnvelope } from './payloads.js';

/** An ack the bot sent for an envelope. `late` acks arrived after the ack deadline. */
export interface AckRecord {
  envelopeId: string;
  at: number;
  ackMs: number;
  payload?: unknown;
  late: boolean;
}

/** An envelope the emulator sent, with every ack it got. */
export interface EnvelopeRecord {
  envelope: SocketEnvelope;
  /** Wall-clock send time (Date.now). */
  sentAt: number;
  /** performance.now() at send time: ack times are measured on the monotonic clock. */
  sentAtMonotonic: number;
  acks: AckRecord[];
  /** Which connection it went to: 1 for the first accepted, 2 for the second… */
  connection: number;
}

/** An envelope that breaks Slack's shape (e.g. without `payload`), for fault tests; it still has an id to ack. */
export type MalformedEnvelope = { envelope_id: string; type: string } & Record<string, unknown>;

/** Why the server asks the client to reconnect. */
export type DisconnectReason = 'warning' | 'refresh_requested' | 'too_many_websockets';

/** The Socket Mode server; created by the emulator, which owns the HTTP server it upgrades. */
export interface SocketModeServer {
  /** A fresh single-use WebSocket URL, as apps.connections.open returns it. */
  issueUrl(): string;
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends an envelope to the newest open connection; resolves on the bot's ack. Malformed ones (fault tests) too. */
  deliver(envelope: SocketEnvelope | MalformedEnvelope): Promise<AckRecord>;
  sendDisconnect(reason: DisconnectReason): void;
  /** Connections accepted since the start. */
  readonly connections: number;
  readonly openConnections: number;
  readonly envelopes: readonly EnvelopeRecord[];
  /** The next envelope goes to connection `number` (when open) instead of the next in turn. */
  deliverNextTo(number: number): void;
  readonly lateAcks: readonly AckRecord[];
  /** Client frames that were not acks (unparsable, or without an envelope_id). */
  readonly strayMessages: readonly string[];
  close(): Promise<void>;
}

interface PendingAck {
  record: EnvelopeRecord;
  resolve: (ack: AckRecord) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** How long close() waits for a client to answer the close frame before cutting the socket. */
const CLOSE_GRACE_MS = 1_000;

/** Creates the server. `onChange` runs after every connection, ack or close, for waitFor. */
export function createSocketModeServer(options: { baseWsUrl: () => string; appId: string; ackTimeoutMs: number; onChange: () => void }): SocketModeServer {
  const wss = new WebSocketServer({ noServer: true });
  const tickets = new Set<string>();
  const open: WebSocket[] = [];
  const envelopes: EnvelopeRecord[] = [];
  const lateAcks: AckRecord[] = [];
  const strayMessages: string[] = [];
  const pending = new Map<string, PendingAck[]>();
  const expired = new Map<string, EnvelopeRecord>();
  let connections = 0;
  let closed = false;

  const forget = (socket: WebSocket) => {
    const index = open.indexOf(socket);
    if (index >= 0) open.splice(index, 1);
  };

  const onAck = (data: RawData) => {
    const text = data.toString();
    const message = parseJsonObject(text);
    if (!message || typeof message.envelope_id !== 'string') {
      strayMessages.push(text);
      options.onChange();
      return;
    }
    const envelopeId = message.envelope_id;
    const payload = message.payload;
    const waiting = pending.get(envelopeId)?.shift();
    const at = Date.now();
    const elapsed = (record: EnvelopeRecord) => performance.now() - record.sentAtMonotonic;
    if (waiting) {
      clearTimeout(waiting.timer);
      const ack: AckRecord = { envelopeId, at, ackMs: elapsed(waiting.record), payload, late: false };
      waiting.record.acks.push(ack);
      waiting.resolve(ack);
    } else {
      const record = expired.get(envelopeId) ?? envelopes.find((e) => e.envelope.envelope_id === envelopeId);
      const ack: AckRecord = { envelopeId, at, ackMs: record ? elapsed(record) : -1, payload, late: true };
      record?.acks.push(ack);
      lateAcks.push(ack);
    }
    options.onChange();
  };

  let deliveries = 0;
  let preferred: number | undefined;
  const numbers = new WeakMap<WebSocket, number>();
  wss.on('connection', (socket) => {
    connections += 1;
    numbers.set(socket, connections);
    open.push(socket);
    socket.on('message', onAck);
    socket.on('close', () => {
      forget(socket);
      options.onChange();
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: open.length,
        debug_info: { host: 'applink-emulator', build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: options.appId },
      }),
    );
    options.onChange();
  });

  const deliver = (envelope: SocketEnvelope | MalformedEnvelope): Promise<AckRecord> => {
    // Slack hands each envelope to one of the app's open connections (not a copy to each): round-robin here.
    const chosen = preferred === undefined ? undefined : open.find((candidate) => numbers.get(candidate) === preferred);
    preferred = undefined;
    const socket = chosen ?? (open.length === 0 ? undefined : open[deliveries++ % open.length]);
    if (!socket || closed) {
      return Promise.reject(new Error(`No Socket Mode connection is open to deliver the ${envelope.type} envelope (connections so far: ${connections}).`));
    }
    const record: EnvelopeRecord = {
      envelope: envelope as SocketEnvelope,
      sentAt: Date.now(),
      sentAtMonotonic: performance.now(),
      acks: [],
      connection: numbers.get(socket) ?? 0,
    };
    envelopes.push(record);
    return new Promise<AckRecord>((resolve, reject) => {
      const timer = setTimeout(() => {
        const queue = pending.get(envelope.envelope_id) ?? [];
        queue.splice(queue.indexOf(entry), 1);
        expired.set(envelope.envelope_id, record);
        reject(new Error(`The bot did not ack ${envelope.type} envelope ${envelope.envelope_id} within ${options.ackTimeoutMs} ms.`));
      }, options.ackTimeoutMs);
      const entry: PendingAck = { record, resolve, reject, timer };
      pending.set(envelope.envelope_id, [...(pending.get(envelope.envelope_id) ?? []), entry]);
      socket.send(JSON.stringify(envelope));
      options.onChange();
    });
  };

  return {
    issueUrl() {
      const ticket = randomUUID();
      tickets.add(ticket);
      return `${options.baseWsUrl()}/socket?ticket=${ticket}`;
    },
    handleUpgrade(request, socket, head) {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const ticket = url.searchParams.get('ticket') ?? '';
      if (closed || url.pathname !== '/socket' || !tickets.delete(ticket)) {
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    },
    deliver,
    deliverNextTo(number) {
      preferred = number;
    },
    sendDisconnect(reason) {
      for (const socket of [...open]) {
        forget(socket);
        socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-emulator' } }));
        socket.close(1000, reason);
      }
      options.onChange();
    },
    get connections() {
      return connections;
    },
    get openConnections() {
      return open.length;
    },
    envelopes,
    lateAcks,
    strayMessages,
    async close() {
      if (closed) return;
      closed = true;
      for (const queue of pending.values()) {
        for (const entry of queue) {
          clearTimeout(entry.timer);
          entry.reject(new Error(`The emulator closed before envelope ${entry.record.envelope.envelope_id} was acked.`));
        }
      }
      pending.clear();
      await Promise.all([...wss.clients].map((socket) => closeSocket(socket)));
      await new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** Closes with a proper close handshake so the client clears its timers; cuts it after a grace period. */
function closeSocket(socket: WebSocket): Promise<void> {
  if (socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    if (socket.readyState !== socket.CLOSING) socket.close(1000, 'emulator closing');
  });
}
