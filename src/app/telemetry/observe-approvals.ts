/**
 * The approval store, observed: a wait starts when the prompt's record is created here and ends
 * when this process sees it decided — settled here (a click, the timeout, a stop) or read back
 * decided after a click on another replica. `pending()` is how many this replica waits for.
 */
import type { ApprovalRecord, ApprovalStore } from '../../core/store/approval-store.js';
import type { TelemetrySink } from './telemetry-sink.js';

export interface ObservedApprovals {
  store: ApprovalStore;
  pending(): number;
}

export function observeApprovalStore(approvals: ApprovalStore, sink: TelemetrySink): ObservedApprovals {
  const open = new Map<string, { runId: string; tool: string; risk: string; startedAt: number }>();
  const seen = (record: ApprovalRecord | undefined): void => {
    if (!record || record.status === 'pending') return;
    const wait = open.get(record.id);
    if (!wait) return;
    open.delete(record.id);
    sink.approvalWait({ ...wait, outcome: record.status, endedAt: record.decidedAt ?? Date.now() });
  };
  const store: ApprovalStore = {
    ...approvals,
    async create(pending) {
      const record = await approvals.create(pending);
      const wait = { runId: record.runId, tool: record.toolName, risk: record.riskLevel, startedAt: record.createdAt };
      open.set(record.id, wait);
      sink.approvalStarted(wait);
      return record;
    },
    async get(id) {
      const record = await approvals.get(id);
      seen(record);
      return record;
    },
    async setMessageRef(id, messageRef) {
      const record = await approvals.setMessageRef(id, messageRef);
      seen(record);
      return record;
    },
    async settle(id, decision) {
      const result = await approvals.settle(id, decision);
      if ('record' in result) seen(result.record);
      return result;
    },
  };
  return { store, pending: () => open.size };
}
