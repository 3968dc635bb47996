/**
 * Prunes old state at start and then every hour: runs, events and sessions after
 * `TSUKA_RETENTION_DAYS`, audit entries after `TSUKA_AUDIT_RETENTION_DAYS` (longer by default).
 */
import type { Logger } from '../core/logger.js';
import type { Store } from '../core/store/open-store.js';
import { pruneOlderThan } from '../core/store/retention.js';
import { pruneAuditOlderThan } from '../core/audit/store-audit-log.js';

export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Starts the schedule; resolves after the first pass. The returned function stops it. 0 days keeps that kind of state. */
export async function startRetention(options: {
  store: Store;
  retentionDays: number;
  auditRetentionDays?: number;
  logger: Logger;
  now?: () => number;
  intervalMs?: number;
}): Promise<() => void> {
  const auditDays = options.auditRetentionDays ?? 0;
  if (options.retentionDays <= 0 && auditDays <= 0) return () => undefined;
  const now = options.now ?? Date.now;
  let running: Promise<void> | undefined;
  const pruneRuns = async () => {
    if (options.retentionDays <= 0) return;
    const report = await pruneOlderThan(options.store, now() - options.retentionDays * DAY_MS);
    if (report.runs + report.sessions > 0) options.logger.info('old state pruned', { retentionDays: options.retentionDays, ...report });
  };
  const pruneAudit = async () => {
    if (auditDays <= 0) return;
    const entries = await pruneAuditOlderThan(options.store, now() - auditDays * DAY_MS);
    if (entries > 0) options.logger.info('old audit entries pruned', { auditRetentionDays: auditDays, entries });
  };
  const pass = () => {
    // Each kind on its own: a failure pruning runs does not keep old audit entries, nor the reverse.
    running ??= pruneRuns()
      .catch((error: unknown) => options.logger.warn('pruning old state failed', { error }))
      .then(() => pruneAudit())
      .catch((error: unknown) => options.logger.warn('pruning old audit entries failed', { error }))
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
