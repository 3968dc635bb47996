/** An approval decision as an audit entry: who decided what, for which run, where the run lives. */
import type { AuditApprovalDecision, AuditLog } from '../../core/audit/audit-log.js';
import type { ApprovalRecord } from '../../core/store/approval-store.js';
import type { RunStore } from '../../core/store/run-store.js';

/** The call an entry is about, as the run that waits on it knows it. */
type AuditedCall = Pick<ApprovalRecord, 'runId' | 'toolName' | 'riskLevel' | 'summary' | 'requesterId' | 'approvedBy'> & {
  /** The policy rule the call met, as stored with its approval (or named when no approval was asked). */
  policy?: { rule: string };
  rule?: string;
};

export async function auditApprovalDecision(
  audit: AuditLog,
  runs: Pick<RunStore, 'get'>,
  record: AuditedCall,
  decision: AuditApprovalDecision,
  decidedBy: string | undefined,
  refused?: { why: string },
): Promise<void> {
  const run = await runs.get(record.runId);
  await audit.append({
    type: 'approval',
    decision,
    ...(decidedBy ? { actor: decidedBy } : {}),
    ...(run ? { where: run.where } : {}),
    runId: record.runId,
    tool: record.toolName,
    riskLevel: record.riskLevel,
    summary: record.summary,
    ...(record.requesterId ? { requester: record.requesterId } : {}),
    ...((record.rule ?? record.policy?.rule) ? { rule: record.rule ?? record.policy?.rule } : {}),
    ...(record.approvedBy?.length ? { approvedBy: record.approvedBy.join(', ') } : {}),
    ...(refused ? { refused: 'tampered' as const, why: refused.why } : {}),
  });
}
