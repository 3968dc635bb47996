/** Prunes old runs, events and sessions at start and then every hour (`TSUKA_RETENTION_DAYS`). */
import type { Logger } from '../core/logger.js';
import type { Store } from '../core/store/open-store.js';
import { pruneOlderThan } from '../core/store/retention.js';

export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Starts the schedule; resolves after the first pass. The returned function stops it. */
export async function startRetention(options: {
  store: Store;
  retentionDays: number;
  logger: Logger;
  now?: () => number;
  intervalMs?: number;
}): Promise<() => void> {
  if (options.retentionDays <= 0) return () => undefined;
  const now = options.now ?? Date.now;
  let running: Promise<void> | undefined;
  const pass = () => {
    running ??= pruneOlderThan(options.store, now() - options.retentionDays * DAY_MS)
      .then((report) => {
        if (report.runs + report.sessions > 0) options.logger.info('old state pruned', { retentionDays: options.retentionDays, ...report });
      })
      .catch((error: unknown) => options.logger.warn('pruning old state failed', { error }))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  await pass();
  const timer = setInterval(() => void pass(), options.intervalMs ?? RETENTION_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
