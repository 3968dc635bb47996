/**
 * Retention: runs that ended before the cutoff go, with their event logs and the state kept to
 * resume them, and so do sessions whose thread has been quiet since before it. Running runs are
 * never pruned, whatever their age.
 */
import type { Store } from './open-store.js';
import type { RunRecord } from './run-types.js';
import type { Session } from './session-store.js';
import { runEventPrefix } from './run-store.js';

/** Namespaces keyed by run id that hold what a run keeps to be resumed (/goal, /team): they go with the run. */
export const PER_RUN_NAMESPACES = ['goal-runs', 'team-runs'] as const;

export interface PruneReport {
  runs: number;
  events: number;
  sessions: number;
}

/** Deletes what is older than `cutoff` (ms since the epoch). */
export async function pruneOlderThan(store: Store, cutoff: number): Promise<PruneReport> {
  const runs = store.namespace<RunRecord>('runs');
  const events = store.namespace<unknown>('run-events');
  const sessions = store.namespace<Session>('sessions');
  const report: PruneReport = { runs: 0, events: 0, sessions: 0 };
  const oldRuns: string[] = [];
  for await (const [id, run] of runs.entries()) {
    if (run.status !== 'running' && (run.endedAt ?? run.createdAt) < cutoff) oldRuns.push(id);
  }
  for (const id of oldRuns) {
    const keys: string[] = [];
    for await (const [key] of events.entries(runEventPrefix(id))) keys.push(key);
    for (const key of keys) if (await events.delete(key)) report.events++;
    for (const name of PER_RUN_NAMESPACES) await store.namespace<unknown>(name).delete(id);
    if (await runs.delete(id)) report.runs++;
  }
  const oldSessions: string[] = [];
  for await (const [threadId, session] of sessions.entries()) if (session.updatedAt < cutoff) oldSessions.push(threadId);
  for (const threadId of oldSessions) if (await sessions.delete(threadId)) report.sessions++;
  return report;
}
