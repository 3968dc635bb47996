/**
 * What start-up does with state left by a stopped process: pending approvals become expired and
 * running runs become interrupted. The caller edits those approval messages and tells those threads.
 */
import type { ApprovalRecord, ApprovalStore } from './approval-store.js';
import type { RunStore } from './run-store.js';
import type { RunRecord } from './run-types.js';

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
