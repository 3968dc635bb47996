/** A call whose policy rule says "none": it runs without a card, and the audit says which rule let it. */
import type { AuditLog } from '../../core/audit/audit-log.js';
import type { Logger } from '../../core/logger.js';
import type { PermissionDecision, PermissionRequest } from '../../core/safety/permission-port.js';
import type { RunStore } from '../../core/store/run-store.js';
import { auditApprovalDecision } from '../approvals/approval-audit.js';

export async function runsWithoutAsking(
  options: { audit?: AuditLog; runs: RunStore; logger: Logger },
  request: PermissionRequest,
  requester: string,
  rule: string,
): Promise<PermissionDecision> {
  const call = { runId: request.runId, toolName: request.toolName, riskLevel: request.riskLevel, summary: request.summary, requesterId: requester };
  if (options.audit) await auditApprovalDecision(options.audit, options.runs, { ...call, rule }, 'approved', undefined);
  await options.runs.appendEvent(request.runId, { type: 'note', text: `no approval asked: the approval policy's rule "${rule}" lets ${request.toolName} run` });
  return { outcome: 'approved', note: `approval policy rule "${rule}": no approval needed` };
}
