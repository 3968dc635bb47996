/**
 * What start-up does with state left by a stopped process: pending approvals become expired and
 * running runs become interrupted. The caller edits those approval messages and tells those threads.
 */
import type { ApprovalRecord, ApprovalStore } from './approval-store.js';
import type { RunStore } from './run-store.js';
import type { RunRecord } from './run-types.js';
import type { Coordination } from '../coordination/coordination.js';

export interface RecoveryReport {
  interruptedRuns: RunRecord[];
  expiredApprovals: ApprovalRecord[];
}

/**
 * Expires pending approvals (logging each in its run) and marks running runs interrupted — except
 * runs whose owner `stillRunning` says is alive (a `tsuka ask` working beside the start).
 */
export async function recoverAfterRestart(stores: {
  runs: RunStore;
  approvals: ApprovalStore;
  stillRunning?: (owner: string) => boolean;
}): Promise<RecoveryReport> {
  const spared = new Set<string>();
  if (stores.stillRunning) {
    for (const { runId, owner } of await stores.runs.runningOwners()) if (owner && stores.stillRunning(owner)) spared.add(runId);
  }
  const expiredApprovals = await expireApprovals(stores, (pending) => spared.has(pending.runId));
  const interruptedRuns = await stores.runs.markInterruptedRunning(undefined, (run) => spared.has(run.id));
  return { interruptedRuns, expiredApprovals };
}

/**
 * True when `owner` (a replica id, `<host>-<pid>-<random>`) is another process on this host that
 * is still running. One store per data folder is locked by `start`, but `tsuka ask` takes no lock.
 */
export function ownerProcessAlive(owner: string, host: string, ownPid: number): boolean {
  const match = /^(.*)-(\d+)-[0-9a-f]{6}$/.exec(owner);
  if (!match || match[1] !== host || Number(match[2]) === ownPid) return false;
  try {
    process.kill(Number(match[2]), 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user — alive all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Expires the pending approvals `keep` does not spare, each noted in its run's log. */
async function expireApprovals(stores: { runs: RunStore; approvals: ApprovalStore }, keep: (pending: ApprovalRecord) => boolean): Promise<ApprovalRecord[]> {
  const expired = await stores.approvals.expireAllPending(keep);
  for (const approval of expired) {
    if (await stores.runs.get(approval.runId)) {
      await stores.runs.appendEvent(approval.runId, { type: 'approval', tool: approval.toolName, outcome: 'expired' });
    }
  }
  return expired;
}

/** Said in the run's log when the replica running it stopped (its lease expired). */
export const REPLICA_STOPPED_NOTE = 'The replica running this run stopped (its lease expired).';

/**
 * With several replicas (Redis): only runs whose owner's lease has expired are interrupted, each by
 * one replica (a claim), and their pending approvals expire. Live replicas' runs are never touched.
 */
export async function recoverDeadReplicas(stores: {
  runs: RunStore;
  approvals: ApprovalStore;
  coordination: Pick<Coordination, 'isAlive' | 'claim'>;
}): Promise<RecoveryReport> {
  const report: RecoveryReport = { interruptedRuns: [], expiredApprovals: [] };
  const alive = new Map<string, boolean>();
  const dead: string[] = [];
  for (const { runId, owner } of await stores.runs.runningOwners()) {
    if (owner && !alive.has(owner)) alive.set(owner, await stores.coordination.isAlive(owner));
    if (owner && alive.get(owner)) continue;
    // One replica recovers each run; the claim outlives any retry of this pass.
    if (!(await stores.coordination.claim(`recover:${runId}`, 10 * 60_000))) continue;
    const record = await stores.runs.markInterrupted(runId, REPLICA_STOPPED_NOTE);
    if (record) {
      report.interruptedRuns.push(record);
      dead.push(runId);
    }
  }
  if (dead.length > 0) report.expiredApprovals = await expireApprovals(stores, (pending) => !dead.includes(pending.runId));
  return report;
}
