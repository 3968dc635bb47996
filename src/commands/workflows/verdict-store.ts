/**
 * A /call's verdict as its buttons need it after the run (Adopt, Reopen — also after a restart):
 * the run, where it was, who asked, the participants, the transcript and the verdict. Kept in the
 * store's `call-verdicts` namespace for {@link VERDICT_TTL_MS}; later, the card's buttons say so.
 */
import type { Store } from '../../core/store/open-store.js';
import type { CallVerdict } from '../../core/workflows/call-verdict.js';
import type { ChannelRef, MessageRef, Platform, ThreadRef, UserRef } from '../chat-surface.js';

export const VERDICT_NAMESPACE = 'call-verdicts';
/** How long a verdict's Adopt and Reopen stay usable. */
export const VERDICT_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/** Each turn of the stored transcript is cut to this many characters (a reopened round reads it). */
const TURN_MAX_CHARS = 6_000;

export interface StoredVerdict {
  runId: string;
  platform: Platform;
  channel: ChannelRef;
  thread: ThreadRef;
  requester: UserRef;
  /** Participants by file name, in speaking order. */
  participants: string[];
  /** Rounds run so far (a reopened call runs one more). */
  rounds: number;
  transcript: { speaker: string; text: string }[];
  verdict: CallVerdict;
  /** `adopting` while the decision and its record are being written (one click wins). */
  state: 'open' | 'adopting' | 'adopted' | 'reopened';
  card?: MessageRef;
  decisionId?: string;
  adrPath?: string;
}

export interface VerdictStore {
  get(runId: string): Promise<StoredVerdict | undefined>;
  save(record: StoredVerdict): Promise<void>;
  /** Read-modify-write, serialized per run; `fn` returns the same object to leave it as it is. */
  update(runId: string, fn: (current: StoredVerdict | undefined) => StoredVerdict | undefined): Promise<StoredVerdict | undefined>;
}

export function verdictStore(store: Store): VerdictStore {
  const namespace = store.namespace<StoredVerdict>(VERDICT_NAMESPACE);
  return {
    get: (runId) => namespace.get(runId),
    async save(record) {
      const transcript = record.transcript.map((turn) => ({ speaker: turn.speaker, text: turn.text.slice(0, TURN_MAX_CHARS) }));
      await namespace.set(record.runId, { ...record, transcript }, VERDICT_TTL_MS);
    },
    async update(runId, fn) {
      if (!(await namespace.has(runId))) return undefined;
      let result: StoredVerdict | undefined;
      await namespace.update(
        runId,
        (current) => {
          result = fn(current);
          // Nothing to store (unknown run): the very same reference skips the write.
          return (result ?? current) as StoredVerdict;
        },
        { ttlMs: VERDICT_TTL_MS },
      );
      return result;
    },
  };
}
