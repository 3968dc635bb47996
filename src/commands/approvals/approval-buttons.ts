/** A click on an approval card's buttons (approval-flow.ts): who may decide, once, from the signed record only. */
import type { Coordination } from '../../core/coordination/coordination.js';
import { mayDecide } from '../../core/scopes/approval-rule.js';
import { policyMayDecide } from '../../core/policy/policy-decider.js';
import { countedShort } from '../policy/approval-count.js';
import type { ApprovalStore } from '../../core/store/approval-store.js';
import type { Logger } from '../../core/logger.js';
import { APPROVE_ACTION, APPROVE_RUN_ACTION, DENY_ACTION } from '../action-ids.js';
import type { ApprovalDelivery, DecidedStatus, Waiter } from './approval-delivery.js';
import { clock } from './approval-text.js';
import type { ChatSurface } from '../chat-surface.js';
import type { ButtonActionEvent } from '../inbound-event.js';

export interface ApprovalButtonContext {
  approvals: ApprovalStore;
  admins: string[];
  now: () => number;
  logger: Logger;
  coordination?: Coordination;
  waiters: ReadonlyMap<string, Waiter>;
  delivery: ApprovalDelivery;
}

/** The decision a permitted click makes, and its banner. */
function clickDecision(event: ButtonActionEvent, by: string, at: string, grant: string): [DecidedStatus, string] {
  if (event.actionId === APPROVE_ACTION) return ['approved', `✅ Approved by ${by} · ${at}`];
  if (event.actionId === APPROVE_RUN_ACTION) return ['approved-for-run', `✅ Approved \`${grant}\` for this run by ${by} · ${at}`];
  return ['denied', `⛔ Denied by ${by} · ${at}`];
}

export async function handleApprovalButton(event: ButtonActionEvent, surface: ChatSurface, context: ApprovalButtonContext): Promise<void> {
  const record = await context.approvals.get(event.value);
  if (!record) return event.replyEphemeral('This approval is no longer active.');
  if (record.tampered) {
    // Whoever clicks: a forged or copied record only ever denies, and the run waiting here learns it now.
    await context.delivery.deliver(event.value, record);
    return event.replyEphemeral('This approval was changed outside TSUKA (it is not the record this call asked for): it counts as denied.');
  }
  if (record.status !== 'pending') {
    const who = record.decidedBy ? ` by ${surface.mention(record.decidedBy)}` : '';
    return event.replyEphemeral(`This was already decided: ${record.status}${who}.`);
  }
  const decision = event.actionId === DENY_ACTION ? 'deny' : 'approve';
  const who = { user: event.user, requester: record.requesterId, isAdmin: context.admins.includes(event.user), approvedBy: record.approvedBy ?? [] };
  const verdict = record.policy ? policyMayDecide(record.policy, decision, who) : mayDecide(record.approvers ?? 'requester', decision, who);
  if (!verdict.ok) return event.replyEphemeral(verdict.why);
  // N-of-M: an approval short of the count is recorded and shown; the card stays up for the next member.
  if (record.policy && decision === 'approve' && (await countedShort(record, event, surface, context))) return;
  if (event.actionId === APPROVE_RUN_ACTION && record.riskLevel !== 'RESTRICTED') {
    return event.replyEphemeral('"Approve for this run" is not available for dangerous actions.');
  }
  const waiter = context.waiters.get(record.id);
  const [status, banner] = clickDecision(event, surface.mention(event.user), clock(context.now()), waiter?.grant ?? record.toolName);
  const note = status === 'denied' ? `denied by ${event.userName ?? event.user}` : undefined;
  const settled = await context.delivery.settleAndShow(record.id, status, { banner, decidedBy: event.user, ...(note ? { note } : {}) });
  if (!settled) return event.replyEphemeral('This was already decided.');
  if (waiter) return;
  const published =
    context.coordination?.shared &&
    // Only a nudge: the waiting replica reads the signed record and renders everything from it.
    (await context.coordination.publish(`approval:${record.id}`, { status }).catch(() => 0)) > 0;
  if (!published && record.messageRef) {
    // Decided but nobody in this process waits for it (it belonged to an earlier process): show the decision anyway.
    await surface
      .edit({ message: record.messageRef, text: `${banner}\n> ${record.summary}`, buttons: [] })
      .catch((error: unknown) => context.logger.warn('could not edit the approval message', { error }));
  }
}
