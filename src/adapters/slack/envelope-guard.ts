/**
 * Socket Mode envelopes are checked before Bolt's client reads them. `@slack/socket-mode` reads
 * `event.payload.event.type` of every `events_api` envelope inside an async handler, so one
 * envelope without `payload` (or without its `event`) becomes an unhandled rejection, and Node
 * ends the process. A malformed envelope is logged, acknowledged (so Slack does not re-deliver
 * it) and dropped; a handler that fails later is logged, never fatal.
 * Events API envelopes are acknowledged the moment they arrive (issue 42), before Bolt, the store or
 * any Slack call sees them: their ack carries nothing, and Slack re-delivers an envelope not
 * acknowledged within 3 s, so the ack must not wait behind a burst. Bolt's own later ack of the
 * same envelope is then not sent twice. Slash commands and interactions keep Bolt's ack (it may
 * carry a response).
 * https://docs.slack.dev/apis/events-api/using-socket-mode
 */
import type { SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../../core/logger.js';

type SocketModeClient = SocketModeReceiver['client'];
type MessageListener = (data: unknown, isBinary: boolean) => unknown;

const CONTROL_TYPES = new Set(['hello', 'disconnect']);
/** Early-acknowledged envelopes whose Bolt ack has not come yet, kept at most this many (oldest dropped). */
const EARLY_ACKS_KEPT = 10_000;

type EnvelopeSender = { send(id: string, body?: Record<string, unknown>): Promise<void> };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with an envelope, or undefined when Bolt can read it. Unparsable text is Bolt's to ignore. */
export function envelopeProblem(envelope: unknown): string | undefined {
  if (!isRecord(envelope)) return 'not an object';
  if (typeof envelope.type !== 'string') return 'no type';
  if (CONTROL_TYPES.has(envelope.type)) return undefined;
  if (typeof envelope.envelope_id !== 'string') return 'no envelope_id';
  if (!isRecord(envelope.payload)) return 'no payload';
  if (envelope.type === 'events_api') {
    const event = envelope.payload.event;
    if (!isRecord(event) || typeof event.type !== 'string') return 'events_api payload without an event type';
  }
  return undefined;
}

function parse(data: unknown): unknown {
  const text = typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('utf8') : undefined;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * Acknowledges Events API envelopes at once and swallows Bolt's second ack of them; returns the
 * function that acknowledges one envelope early (`send` is typed private: it is the client's own ack).
 */
function acknowledgeEventsEarly(client: SocketModeClient, logger: Logger): (envelopeId: string) => void {
  const sender = client as unknown as EnvelopeSender;
  const send = sender.send.bind(sender);
  const early = new Set<string>();
  sender.send = (id, body) => (early.delete(id) ? Promise.resolve() : send(id, body));
  return (envelopeId) => {
    early.add(envelopeId);
    if (early.size > EARLY_ACKS_KEPT) early.delete(early.values().next().value as string);
    send(envelopeId).catch((error: unknown) => logger.warn('could not acknowledge a Slack envelope', { envelopeId, error }));
  };
}

/** Puts the check in front of the client's own `ws_message` listeners. Call once, before start. */
export function guardSocketModeEnvelopes(client: SocketModeClient, logger: Logger): void {
  const listeners = client.listeners('ws_message') as MessageListener[];
  client.removeAllListeners('ws_message');
  const acknowledge = acknowledgeEventsEarly(client, logger);
  // One envelope per turn of the event loop. The WebSocket parser emits every frame of a socket read
  // at once, and each event's handling (Bolt's middleware, our intake) runs on as microtasks after
  // them: a burst of mentions in one read was one long task that held timers and sockets back.
  const waiting: { data: unknown; isBinary: boolean }[] = [];
  const handleNext = (): void => {
    const next = waiting.shift();
    if (waiting.length > 0) setImmediate(handleNext);
    if (next) handOn(next.data, next.isBinary);
  };
  const handOn = (data: unknown, isBinary: boolean): void => {
    for (const listener of listeners) {
      Promise.resolve()
        .then(() => listener.call(client, data, isBinary))
        .catch((error: unknown) => logger.error('Slack envelope handling failed; envelope dropped', { error }));
    }
  };
  // Each envelope is read once, as it arrives: dropped there when malformed, acknowledged there when an event.
  client.on('ws_message', (data: unknown, isBinary: boolean) => {
    const envelope = isBinary ? undefined : parse(data);
    const problem = envelope === undefined ? undefined : envelopeProblem(envelope);
    if (problem) return dropMalformed(client, logger, envelope, problem);
    if (isRecord(envelope) && envelope.type === 'events_api') acknowledge(envelope.envelope_id as string);
    waiting.push({ data, isBinary });
    if (waiting.length === 1) setImmediate(handleNext);
  });
}

/** Logs a malformed envelope and acknowledges it (so Slack does not re-deliver it): an empty ack, as Bolt's own. */
function dropMalformed(client: SocketModeClient, logger: Logger, envelope: unknown, problem: string): void {
  const envelopeId = isRecord(envelope) && typeof envelope.envelope_id === 'string' ? envelope.envelope_id : undefined;
  logger.warn('Slack envelope dropped: malformed', { problem, envelopeId, type: isRecord(envelope) ? envelope.type : undefined });
  if (envelopeId)
    (client as unknown as EnvelopeSender)
      .send(envelopeId)
      .catch((error: unknown) => logger.warn('could not acknowledge a dropped Slack envelope', { envelopeId, error }));
}
