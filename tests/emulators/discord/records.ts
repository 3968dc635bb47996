/**
 * What the Discord emulator saw, kept for assertions, plus `waitFor`, which re-checks a
 * predicate on every recorded change instead of polling.
 */

/** One REST request as it reached the emulator. */
export interface RestCallRecord {
  method: string;
  /** Path below `/api/v10`, URL-decoded per segment (`/webhooks/1/t/messages/@original`). */
  path: string;
  query: Record<string, string>;
  /** Parsed JSON body, or the `payload_json` part of a multipart body; `undefined` when empty. */
  body: unknown;
  /** Whether an `Authorization` header came with the request (interaction and webhook-token calls carry none). */
  authorized: boolean;
  status: number;
  /** The error message of a refused or failed request. */
  error?: string;
  at: number;
}

/** A request answered with 429. */
export interface RateLimitRecord {
  method: string;
  path: string;
  bucket: string;
  /** `shared` for the per-channel message limit, `user` for a route bucket. */
  scope: 'shared' | 'user';
  retryAfterMs: number;
  at: number;
}

/** An initial interaction response (`POST /interactions/:id/:token/callback`). */
export interface InteractionResponseRecord {
  interactionId: string;
  /** 4 reply, 5 deferred reply, 6 deferred update, 7 update message, 9 modal. */
  type: number;
  data: unknown;
  /** Time between the INTERACTION_CREATE dispatch and this callback. */
  ms: number;
  /** False when Discord would have refused it (already acknowledged, or after the 3 s deadline). */
  accepted: boolean;
  at: number;
}

/** A follow-up message sent with an interaction token (`POST /webhooks/:app/:token`). */
export interface FollowUpRecord {
  interactionId: string;
  messageId: string;
  content: string;
  /** Flag 64 was set. */
  ephemeral: boolean;
  body: unknown;
  at: number;
}

/** A `PUT` of a whole application-command set. */
export interface CommandPutRecord {
  /** `global`, or the guild id of a guild-scoped set. */
  scope: string;
  commands: unknown[];
  /** Commands in this PUT whose name and type were not in the previous set (they count against the daily create limit). */
  created: number;
  at: number;
}

/** A gateway lifecycle event. */
export interface GatewayRecord {
  kind: 'connect' | 'identify' | 'resume' | 'close';
  sessionId?: string;
  intents?: number;
  /** Close code, for `close` (sent by either side). */
  code?: number;
  at: number;
}

/** Options of `waitFor`. */
export interface WaitForOptions {
  /** Default 5000. */
  timeoutMs?: number;
}

/** The emulator's shared log and change signal. */
export interface Recorder {
  readonly calls: RestCallRecord[];
  readonly rateLimited: RateLimitRecord[];
  readonly interactionResponses: InteractionResponseRecord[];
  readonly followUps: FollowUpRecord[];
  readonly commandPuts: CommandPutRecord[];
  readonly gateway: GatewayRecord[];
  /** Signals that something observable changed; every pending `waitFor` re-checks. */
  changed(): void;
  waitFor<T>(predicate: () => T | false | null | undefined, options?: WaitForOptions): Promise<T>;
}

const DEFAULT_WAIT_TIMEOUT_MS = 5000;
const CALLS_SHOWN_ON_TIMEOUT = 8;

/** Creates an empty recorder. */
export function createRecorder(): Recorder {
  const listeners = new Set<() => void>();
  const recorder: Recorder = {
    calls: [],
    rateLimited: [],
    interactionResponses: [],
    followUps: [],
    commandPuts: [],
    gateway: [],
    changed() {
      for (const listener of [...listeners]) listener();
    },
    waitFor<T>(predicate: () => T | false | null | undefined, options: WaitForOptions = {}): Promise<T> {
      const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
      return new Promise<T>((resolve, reject) => {
        const check = (): boolean => {
          let value: T | false | null | undefined;
          try {
            value = predicate();
          } catch (error) {
            finish();
            reject(error instanceof Error ? error : new Error(String(error)));
            return true;
          }
          if (value === false || value === null || value === undefined) return false;
          finish();
          resolve(value);
          return true;
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(describeTimeout(timeoutMs, recorder.calls)));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        if (!check()) listeners.add(check);
      });
    },
  };
  return recorder;
}

function describeTimeout(timeoutMs: number, calls: RestCallRecord[]): string {
  const recent = calls.slice(-CALLS_SHOWN_ON_TIMEOUT);
  const lines = recent.map((call) => {
    const body = call.body === undefined ? '' : ` ${truncate(JSON.stringify(call.body), 160)}`;
    return `  ${call.method} ${call.path} → ${call.status}${body}`;
  });
  const shown = lines.length > 0 ? `last ${lines.length} of ${calls.length} REST calls:\n${lines.join('\n')}` : 'no REST calls were made';
  return `discord emulator: waitFor timed out after ${timeoutMs} ms; ${shown}`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
