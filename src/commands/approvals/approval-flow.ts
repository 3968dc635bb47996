/**
 * Approvals in chat (design §2.2): a prompt message with Approve / Approve for this run / Deny,
 * decided only by those the rule allows, once, for the one call that asked (its fingerprint is in
 * the signed record); edited to show the decision; expired after the timeout; cancelled when the
 * run stops. Fails closed everywhere. How a wait ends is approval-delivery.ts; a click is
 * approval-buttons.ts.
 */
import { randomBytes } from 'node:crypto';
import type { PermissionDecision, PermissionPrompt, PermissionRequest } from '../../core/safety/permission-port.js';
import { callFingerprint } from '../../core/safety/call-fingerprint.js';
import type { ChatSurface, MessageRef, ThreadRef, UserRef } from '../chat-surface.js';
import type { ButtonActionEvent } from '../inbound-event.js';
import { isShutdown } from '../runs/active-runs.js';
import { clock, describeRequest } from './approval-text.js';
import type { Coordination } from '../../core/coordination/coordination.js';
import type { Approvers, DangerousRule } from '../../core/scopes/approval-rule.js';
import type { ApprovalPolicy } from '../../core/policy/policy-schema.js';
import type { PolicyDecider } from '../../core/policy/policy-decider.js';
import { callDeciders } from '../policy/policy-approvers.js';
import { runsWithoutAsking } from '../policy/policy-no-ask.js';
import { APPROVE_ACTION, APPROVE_RUN_ACTION, DENY_ACTION, SHOW_WHOLE_FILE_ACTION } from '../action-ids.js';
import { approvalCardButtons, showWholeFile, wholeFileOf } from './approval-whole-file.js';
import { decidedElsewhere, endVanishedWaits } from './approval-vanished.js';
import { createApprovalDelivery, type ApprovalDeliveryOptions, type Waiter } from './approval-delivery.js';
import { handleApprovalButton } from './approval-buttons.js';

export { describeRequest } from './approval-text.js';
export { APPROVE_ACTION, APPROVE_RUN_ACTION, DENY_ACTION } from '../action-ids.js';

const ACTIONS = new Set([APPROVE_ACTION, APPROVE_RUN_ACTION, DENY_ACTION]);

export interface ApprovalFlowOptions extends ApprovalDeliveryOptions {
  admins: string[];
  timeoutMs: number;
  now?: () => number;
  /** With replicas: a click on another replica reaches the run waiting here through it (pub/sub). */
  coordination?: Coordination;
  /** Who may decide a DANGEROUS call asked in this thread (the channel's rule and who is in it); default: the requester or an admin. */
  dangerousApprovers?: (context: { surface: ChatSurface; thread: ThreadRef }) => Promise<DangerousRule>;
  /** The approval policy in force (issue 39): its rule decides who may approve, before the channel's. */
  policy?: () => ApprovalPolicy | undefined;
}

/** Posts an approval card (`post`) in its place among the messages of the reply that asks. */
export type AroundCard = (request: PermissionRequest, post: () => Promise<MessageRef>) => Promise<MessageRef>;

export interface ApprovalFlow {
  /**
   * A permission prompt that asks in `thread` on behalf of `requester`. `aroundCard` posts the
   * card where the reply that asks stands (the reply renderer's `aroundCard`): what the call does
   * is then shown after the card, never above it.
   */
  promptFor(context: { surface: ChatSurface; thread: ThreadRef; requester: UserRef; aroundCard?: AroundCard }): PermissionPrompt;
  /** Handles a click; false when the button is not an approval button. */
  handleButton(event: ButtonActionEvent, surface: ChatSurface): Promise<boolean>;
  pendingCount(): number;
  /** Resolves when every decision being recorded and shown has finished (shutdown waits for it). */
  drain(): Promise<void>;
}

export function createApprovalFlow(options: ApprovalFlowOptions): ApprovalFlow {
  const now = options.now ?? Date.now;
  const waiters = new Map<string, Waiter>();
  const delivery = createApprovalDelivery(options, waiters);
  // A Redis that came back empty took the pending records with it: their runs are told at once.
  options.coordination?.storeHealth?.onEmptied(() => void endVanishedWaits(waiters, { approvals: options.approvals, delivery, logger: options.logger }));

  /** The admins of the surface's platform, named on the card. */
  const adminsOn = (surface: ChatSurface) => options.admins.filter((admin) => admin.startsWith(`${surface.platform}:`));

  /** Records the pending approval with its call's fingerprint and starts waiting for it. */
  async function openWait(
    id: string,
    request: PermissionRequest,
    context: { surface: ChatSurface; requester: UserRef; approvers: Approvers; text: string; decider?: PolicyDecider },
    signal: AbortSignal,
  ): Promise<{ decided: Promise<PermissionDecision>; waiter: Waiter }> {
    const { requester, approvers } = context;
    const fingerprint = callFingerprint({
      toolName: request.toolName,
      arguments: request.arguments,
      riskLevel: request.riskLevel,
      reason: request.reason,
      ...(request.grantScope !== undefined ? { grantScope: request.grantScope } : {}),
      requesterId: requester,
      approvers,
      ...(context.decider ? { policy: context.decider } : {}),
    });
    await options.approvals.create({
      id,
      runId: request.runId,
      toolCallId: request.toolCallId,
      fingerprint,
      toolName: request.toolName,
      riskLevel: request.riskLevel,
      summary: request.summary,
      requesterId: requester,
      approvers,
      ...(context.decider ? { policy: context.decider } : {}),
      expiresAt: now() + options.timeoutMs,
    });
    let resolve: (decision: PermissionDecision) => void = () => undefined;
    const decided = new Promise<PermissionDecision>((settle) => (resolve = settle));
    const waiter: Waiter = {
      resolve,
      surface: context.surface,
      text: context.text,
      grant: request.grantScope ?? request.toolName,
      expected: { id, runId: request.runId, toolCallId: request.toolCallId, fingerprint },
      call: { runId: request.runId, toolName: request.toolName, riskLevel: request.riskLevel, summary: request.summary, requesterId: requester },
      signal,
      ...wholeFileOf(request),
    };
    waiters.set(id, waiter);
    return { decided, waiter };
  }

  /** Posts the card (in its place among the reply's messages) and records its message. */
  async function postCard(waiter: Waiter, request: PermissionRequest, context: { thread: ThreadRef; aroundCard?: AroundCard }): Promise<void> {
    const { surface, text } = waiter;
    const id = waiter.expected.id;
    const buttons = approvalCardButtons(request, id, waiter.wholeFile !== undefined);
    waiter.buttons = buttons;
    await options.runs.appendEvent(request.runId, {
      type: 'note',
      text: `approval requested: ${request.toolName} (${request.riskLevel}) — ${request.summary}`,
    });
    const expires = `⌛ Expires at ${clock(now() + options.timeoutMs)} (in ${Math.max(1, Math.round(options.timeoutMs / 60_000))} min) if nobody decides — then it is denied.`;
    const post = () => surface.post({ thread: context.thread, text: `${text}\n${expires}`, buttons });
    const messageRef = await (context.aroundCard ? context.aroundCard(request, post) : post());
    // Decided while the prompt was being posted: the decision is shown on it now, never live buttons.
    await delivery.cardPosted(waiter, messageRef);
    // The card is up and this wait knows it: the store losing the reference (Redis dropped just now)
    // does not end the wait — a decision still needs the stored record, and a vanished one is said on the card.
    const record = await options.approvals.setMessageRef(id, messageRef).catch((error: unknown) => {
      options.logger.warn('could not record which message is an approval card; the wait goes on', { approvalId: id, error });
      return undefined;
    });
    // Decided in the store (another replica, a forger) but not yet here: it ends this wait now.
    if (record && (record.tampered || record.status !== 'pending')) await delivery.deliver(id, record);
  }

  async function ask(
    request: PermissionRequest,
    signal: AbortSignal,
    context: { surface: ChatSurface; thread: ThreadRef; requester: UserRef; aroundCard?: AroundCard },
  ): Promise<PermissionDecision> {
    const { surface } = context;
    const id = randomBytes(6).toString('hex');
    const deciders = await callDeciders(options, request, surface, context.thread);
    if (deciders.kind === 'none') return runsWithoutAsking(options, request, context.requester, deciders.rule);
    const { rule, decider } = deciders;
    const approvers = rule.approvers;
    const room = { admins: adminsOn(surface), alone: rule.alone, ...(decider ? { decider } : deciders.ruleName ? { ruleName: deciders.ruleName } : {}) };
    const text = describeRequest({ ...request, requesterId: context.requester }, surface, approvers, room);
    const { decided, waiter } = await openWait(
      id,
      request,
      { surface, requester: context.requester, approvers, text, ...(decider ? { decider } : {}) },
      signal,
    );
    // Listening before the buttons exist: a click on any replica reaches this run at once.
    const unsubscribe = options.coordination?.shared
      ? await options.coordination.subscribe(
          `approval:${id}`,
          () => void decidedElsewhere(id, { waiters, approvals: options.approvals, delivery, logger: options.logger }),
        )
      : undefined;
    // The clock starts with the record (its expiresAt), not when the slower post returns.
    const timer = setTimeout(() => {
      void delivery.settleAndShow(id, 'expired', {
        banner: `⌛ Expired after ${Math.round(options.timeoutMs / 1000)} s without a decision — denied.`,
        note: 'nobody decided in time',
      });
    }, options.timeoutMs);
    try {
      await postCard(waiter, request, context);
    } catch (error) {
      // No prompt could be shown: nobody can decide, so it is denied (fail closed) and nothing stays pending.
      clearTimeout(timer);
      await options.approvals.settle(id, { status: 'denied' }).catch(() => undefined);
      waiters.delete(id);
      await unsubscribe?.().catch(() => undefined);
      throw error;
    }
    const onAbort = () =>
      void (isShutdown(signal)
        ? delivery.settleAndShow(id, 'expired', { banner: '⌛ Expired — TSUKA is restarting; ask again once it is back.', note: 'TSUKA is restarting' })
        : delivery.settleAndShow(id, 'denied', { banner: '⏹ Cancelled — the run was stopped.', note: 'the run was stopped' }));
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    try {
      return await decided;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      await unsubscribe?.().catch(() => undefined);
    }
  }

  return {
    pendingCount: () => waiters.size,
    drain: () => delivery.drain(),
    promptFor: (context) => ({ ask: (request, signal) => ask(request, signal, context) }),
    async handleButton(event, surface) {
      if (event.actionId === SHOW_WHOLE_FILE_ACTION) return showWholeFile(event, surface, waiters).then(() => true);
      if (!ACTIONS.has(event.actionId)) return false;
      await handleApprovalButton(event, surface, { ...options, now, waiters, delivery });
      return true;
    },
  };
}
