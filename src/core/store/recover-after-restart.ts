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

/** Expires pending approvals (logging each in its run) and marks running runs interrupted. */
export async function recoverAfterRestart(stores: { runs: RunStore; approvals: ApprovalStore }): Promise<RecoveryReport> {
  const expiredApprovals = await stores.approvals.expireAllPending();
  for (const approval of expiredApprovals) {
    if (await stores.runs.get(approval.runId)) {
      await stores.runs.appendEvent(approval.runId, { type: 'approval', tool: approval.toolName, outcome: 'expired' });
    }
  }
  const interruptedRuns = await stores.runs.markInterruptedRunning();
  return { interruptedRuns, expiredApprovals };
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
  if (dead.length === 0) return report;
  for (const pending of await stores.approvals.listPending()) {
    if (!dead.includes(pending.runId)) continue;
    const result = await stores.approvals.settle(pending.id, { status: 'expired' });
    if (!result.ok) continue;
    report.expiredApprovals.push(result.record);
    await stores.runs.appendEvent(pending.runId, { type: 'approval', tool: pending.toolName, outcome: 'expired' });
  }
  return report;
}
