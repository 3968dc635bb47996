/**
 * The playground's chat kept in the store (namespace `playground`), so that channels, messages,
 * threads and uploads are there again after a restart, as they are on Slack and Discord. Writes
 * are behind the chat: a message that streams (many edits a second) is written once it has been
 * quiet for `delayMs`, or at the latest `maxDelayMs` after its first unwritten change (a reply that
 * streams for minutes must not hold back the question it answers: after a crash its thread is
 * needed to say the run was interrupted), and everything pending is written at stop. Ephemerals and statuses are not
 * kept: they belong to the moment.
 */
import type { Logger } from '../../core/logger.js';
import type { KeyValueNamespace } from '../../core/store/key-value-namespace.js';
import type { PlaygroundChange, PlaygroundChannel, PlaygroundFile, PlaygroundMessage } from './state.js';

/** Older messages than the newest this many are forgotten at start (the page stays quick). */
export const PLAYGROUND_KEPT_MESSAGES = 2_000;
const WRITE_DELAY_MS = 400;
const MAX_WRITE_DELAY_MS = 1_000;

export type StoredFile = PlaygroundFile & { content: string };
type Stored = { kind: 'channel'; channel: PlaygroundChannel } | { kind: 'message'; message: PlaygroundMessage } | { kind: 'file'; file: StoredFile };

export interface PlaygroundHistory {
  channels: PlaygroundChannel[];
  messages: PlaygroundMessage[];
  files: StoredFile[];
}

export interface PlaygroundPersistence {
  load(): Promise<PlaygroundHistory>;
  /** Takes every change the state announces; writes what should be kept. */
  record(change: PlaygroundChange, fileContent?: (id: string) => string | undefined): void;
  /** Writes everything pending. */
  flush(): Promise<void>;
}

export function createPlaygroundPersistence(
  namespace: KeyValueNamespace<Stored>,
  options: { logger: Logger; delayMs?: number; maxDelayMs?: number; now?: () => number },
): PlaygroundPersistence {
  const now = options.now ?? Date.now;
  const pending = new Map<string, Stored>();
  let timer: NodeJS.Timeout | undefined;
  /** When the oldest unwritten change came: the quiet-time wait never pushes a write past its maximum. */
  let oldestPendingAt: number | undefined;
  let writing: Promise<void> = Promise.resolve();

  const writeNow = async (): Promise<void> => {
    timer = undefined;
    oldestPendingAt = undefined;
    const batch = [...pending.entries()];
    pending.clear();
    for (const [key, value] of batch) {
      await namespace.set(key, value).catch((error: unknown) => options.logger.warn('could not keep a playground message', { key, error }));
    }
  };
  const schedule = () => {
    if (timer) clearTimeout(timer);
    oldestPendingAt ??= now();
    const latest = oldestPendingAt + (options.maxDelayMs ?? MAX_WRITE_DELAY_MS);
    timer = setTimeout(
      () => {
        writing = writing.then(writeNow);
      },
      Math.max(0, Math.min(options.delayMs ?? WRITE_DELAY_MS, latest - now())),
    );
    timer.unref();
  };

  return {
    async load() {
      const history: PlaygroundHistory = { channels: [], messages: [], files: [] };
      for await (const [, value] of namespace.entries()) {
        if (value.kind === 'channel') history.channels.push(value.channel);
        else if (value.kind === 'message') history.messages.push(value.message);
        else if (value.kind === 'file') history.files.push(value.file);
      }
      history.messages.sort((a, b) => a.createdAt - b.createdAt);
      const dropped = history.messages.splice(0, Math.max(0, history.messages.length - PLAYGROUND_KEPT_MESSAGES));
      for (const message of dropped) await namespace.delete(`message:${message.id}`);
      return history;
    },
    record(change, fileContent) {
      if (change.kind === 'channel') pending.set(`channel:${change.channel.id}`, { kind: 'channel', channel: change.channel });
      else if (change.kind === 'message') pending.set(`message:${change.message.id}`, { kind: 'message', message: change.message });
      else if (change.kind === 'file')
        pending.set(`file:${change.file.id}`, { kind: 'file', file: { ...change.file, content: fileContent?.(change.file.id) ?? '' } });
      else return;
      schedule();
    },
    async flush() {
      if (timer) clearTimeout(timer);
      writing = writing.then(writeNow);
      await writing;
    },
  };
}
