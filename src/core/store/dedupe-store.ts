/**
 * Seen inbound event ids, so a platform's retried delivery (Slack retries for ~5 minutes) is
 * handled once. Entries expire after the TTL; expired rows are purged now and then.
 */
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { Store } from './open-store.js';

/** Default time an event id is remembered: longer than any platform's retry window. */
export const DEDUPE_DEFAULT_TTL_MS = 15 * 60 * 1000;
const PURGE_EVERY_MARKS = 1_000;

export interface DedupeStore {
  /** True the first time `eventId` is seen within the TTL, false after (atomic, across replicas too with `claim`). */
  markSeen(eventId: string): Promise<boolean>;
}

/** Creates the de-duplication store over the `dedupe` namespace. */
export function createDedupeStore(
  store: Store,
  options: {
    ttlMs?: number;
    logger?: Logger;
    /** Set-if-absent shared by replicas (Redis): one atomic call instead of a read-modify-write. */
    claim?: (eventId: string, ttlMs: number) => Promise<boolean>;
  } = {},
): DedupeStore {
  const ttlMs = options.ttlMs ?? DEDUPE_DEFAULT_TTL_MS;
  const claim = options.claim;
  if (claim) return { markSeen: (eventId) => claim(eventId, ttlMs) };
  const logger = options.logger ?? silentLogger;
  const seen = store.namespace<number>('dedupe');
  let marks = 0;
  return {
    async markSeen(eventId) {
      let first = false;
      await seen.update(
        eventId,
        (current) => {
          if (current !== undefined) return current;
          first = true;
          return Date.now();
        },
        { ttlMs },
      );
      marks += 1;
      if (marks % PURGE_EVERY_MARKS === 0) {
        seen.purgeExpired().catch((error: unknown) => logger.warn('could not purge expired event ids', { error }));
      }
      return first;
    },
  };
}
