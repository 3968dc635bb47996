/**
 * The audit log over the store's `audit` namespace (SQLite or Redis). A key is
 * `<at, 15 digits>-<process tag>-<counter>`: ordered by time, unique without a shared counter (a
 * `tsuka ask` and `tsuka start` may write one SQLite file, replicas one Redis), and never reused —
 * an append that finds its key taken fails instead of replacing the entry.
 */
import { randomBytes } from 'node:crypto';
import { StoreError } from '../errors.js';
import type { Store } from '../store/open-store.js';
import type { AuditEntry, AuditLog } from './audit-log.js';

export const AUDIT_NAMESPACE = 'audit';
const TIME_DIGITS = 15;
const COUNTER_DIGITS = 6;

/** Every string of an entry (and of its places) through `mask`: a summary can quote a command with a token in it. */
function maskEntry<T extends object>(entry: T, mask: (text: string) => string): T {
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    masked[key] = typeof value === 'string' ? mask(value) : value && typeof value === 'object' ? maskEntry(value as object, mask) : value;
  }
  return masked as T;
}

export function createStoreAuditLog(store: Store, options: { now?: () => number; maskSecrets?: (text: string) => string } = {}): AuditLog {
  const now = options.now ?? Date.now;
  const mask = options.maskSecrets;
  const entries = store.namespace<AuditEntry>(AUDIT_NAMESPACE);
  const tag = randomBytes(4).toString('hex');
  let counter = 0;
  let last = 0;
  return {
    async append(input) {
      // Never backwards within this process, whatever the clock does.
      const at = Math.max(now(), last);
      last = at;
      counter = (counter + 1) % 10 ** COUNTER_DIGITS;
      const id = `${String(at).padStart(TIME_DIGITS, '0')}-${tag}-${String(counter).padStart(COUNTER_DIGITS, '0')}`;
      const entry = { ...(mask ? maskEntry(input, mask) : input), id, at } as AuditEntry;
      await entries.update(id, (current) => {
        if (current) throw new StoreError(`The audit entry ${id} exists already; an audit entry is never replaced.`);
        return entry;
      });
      return entry;
    },
    async list(listOptions = {}) {
      const since = listOptions.since ?? 0;
      const found: AuditEntry[] = [];
      for await (const [, entry] of entries.entries()) if (entry.at >= since) found.push(entry);
      return found;
    },
  };
}

/** Deletes audit entries older than `cutoff` (epoch ms); returns how many. The retention schedule calls it. */
export async function pruneAuditOlderThan(store: Store, cutoff: number): Promise<number> {
  const entries = store.namespace<AuditEntry>(AUDIT_NAMESPACE);
  const old: string[] = [];
  for await (const [id, entry] of entries.entries()) {
    // Keys are ordered by time: the first recent entry ends the old ones.
    if (entry.at >= cutoff) break;
    old.push(id);
  }
  let deleted = 0;
  for (const id of old) if (await entries.delete(id)) deleted++;
  return deleted;
}
