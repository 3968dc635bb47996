/**
 * N-of-M approvals (issue 39): each distinct member's approval is counted in the signed record;
 * while fewer than the rule requires, the card says "1 of 2 approvals: <@U…>" and keeps its
 * buttons; the approval that reaches the count settles it as any other.
 */
import type { ApprovalRecord } from '../../core/store/approval-store.js';
import { policyDecidesLine } from '../../core/policy/policy-decider.js';
import type { Logger } from '../../core/logger.js';
import type { Waiter } from '../approvals/approval-delivery.js';
import type { ChatSurface } from '../chat-surface.js';
import type { ButtonActionEvent } from '../inbound-event.js';
import { APPROVE_RUN_ACTION } from '../action-ids.js';
import type { ApprovalStore } from '../../core/store/approval-store.js';

/** True when this approval was counted and more are needed (the click is answered); false: settle now. */
export async function countedShort(
  record: ApprovalRecord,
  event: ButtonActionEvent,
  surface: ChatSurface,
  context: { approvals: ApprovalStore; waiters: ReadonlyMap<string, Waiter>; logger: Logger },
): Promise<boolean> {
  const decider = record.policy;
  if (!decider) return false;
  if (event.actionId === APPROVE_RUN_ACTION) {
    await event.replyEphemeral('"Approve for this run" is not available under an approval policy rule: approve this call.');
    return true;
  }
  if (decider.required <= 1) return false;
  const counted = context.approvals.recordApproval ? await context.approvals.recordApproval(record.id, event.user) : undefined;
  if (!counted) {
    await event.replyEphemeral('This approval could not be counted (it is no longer pending): nothing was approved.');
    return true;
  }
  const approvedBy = counted.approvedBy ?? [];
  if (approvedBy.length >= decider.required) return false;
  const waiter = context.waiters.get(record.id);
  const progress = `${approvedBy.length} of ${decider.required} approvals: ${approvedBy.map((user) => surface.mention(user)).join(', ')}`;
  const message = waiter?.messageRef ?? counted.messageRef;
  if (message) {
    const text = waiter
      ? `${waiter.text}\n${progress}`
      : `${policyDecidesLine(decider, counted.requesterId, (user) => surface.mention(user), approvedBy)}\n> ${counted.summary}`;
    await surface
      .edit({ message, text, ...(waiter?.buttons ? { buttons: waiter.buttons } : {}) })
      .catch((error: unknown) => context.logger.warn('could not show the approvals counted so far on the card', { error }));
  }
  await event.replyEphemeral(`Your approval is counted: ${progress}. ${decider.required - approvedBy.length} more needed.`);
  return true;
}
