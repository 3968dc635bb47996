/**
 * Approvals in chat (design §2.2): a prompt message with Approve / Approve for this run / Deny,
 * decided only by the requester or an admin, once; edited to show the decision; expired after the
 * timeout; cancelled when the run stops. Fails closed everywhere.
 */
import { randomBytes } from 'node:crypto';
import type { ApprovalStore } from '../core/store/approval-store.js';
import type { RunStore } from '../core/store/run-store.js';
import type { Logger } from '../core/logger.js';
import type { PermissionDecision, PermissionPrompt, PermissionRequest } from '../core/safety/permission-port.js';
import type { Button, ChatSurface, MessageRef, ThreadRef, UserRef } from './chat-surface.js';
import type { ButtonActionEvent } from './inbound-event.js';
import { isShutdown } from './active-runs.js';
import { approveForRunLabel } from './button-label.js';
import { clock, decidedBanner, describeRequest } from './approval-text.js';
import type { Coordination } from '../core/coordination/coordination.js';
import { mayDecide, type DangerousRule } from '../core/scopes/approval-rule.js';
import type { AuditLog } from '../core/audit/audit-log.js';
import { auditApprovalDecision } from './approval-audit.js';

export { describeRequest } from './approval-text.js';

const DECIDED_STATUSES = new Set(['approved', 'approved-for-run', 'denied', 'expired']);

export const APPROVE_ACTION = 'tsuka_approve';
export const APPROVE_RUN_ACTION = 'tsuka_approve_run';
export const DENY_ACTION = 'tsuka_deny';
const ACTIONS = new Set([APPROVE_ACTION, APPROVE_RUN_ACTION, DENY_ACTION]);

export interface ApprovalFlowOptions {
  approvals: ApprovalStore;
  runs: RunStore;
  admins: string[];
  timeoutMs: number;
  logger: Logger;
  now?: () => number;
  /** With replicas: a click on another replica reaches the run waiting here through it (pub/sub). */
  coordination?: Coordination;
  /** Who may decide a DANGEROUS call asked in this thread (the channel's rule and who is in it); default: the requester or an admin. */
  dangerousApprovers?: (context: { surface: ChatSurface; thread: ThreadRef }) => Promise<DangerousRule>;
  /** Every decision (click, timeout, stop) is appended to it. */
  audit?: AuditLog;
}

interface Waiter {
  resolve(decision: PermissionDecision): void;
  surface: ChatSurface;
  text: string;
  /** What "approve for this run" covers, for the decision banner. */
  grant: string;
  /** The prompt this run posted (its own, never one named by a stored record that may be forged). */
  messageRef?: string;
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

  /** Fixed when asked: the channel's rule for DANGEROUS calls; a failure to tell falls back to the strictest sensible rule. */
  async function approversOf(request: PermissionRequest, surface: ChatSurface, thread: ThreadRef): Promise<DangerousRule> {
    if (request.riskLevel !== 'DANGEROUS' || !options.dangerousApprovers) return { approvers: 'requester', alone: false };
    return options.dangerousApprovers({ surface, thread }).catch((error: unknown) => {
      options.logger.warn('could not tell who may approve in this channel: someone other than the requester must', { error });
      return { approvers: 'other' as const, alone: false };
    });
  }
  /** The admins of the surface's platform, named on the card. */
  const adminsOn = (surface: ChatSurface) => options.admins.filter((admin) => admin.startsWith(`${surface.platform}:`));

  const inFlight = new Set<Promise<unknown>>();
  /** Settles and shows a decision, tracked so that shutdown can wait for the message edit. */
  function settleAndShow(
    id: string,
    decision: PermissionDecision,
    status: 'approved' | 'approved-for-run' | 'denied' | 'expired',
    banner: string,
  ): Promise<PermissionDecision | undefined> {
    const work = settleAndShowNow(id, decision, status, banner);
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  async function settleAndShowNow(
    id: string,
    decision: PermissionDecision,
    status: 'approved' | 'approved-for-run' | 'denied' | 'expired',
    banner: string,
  ): Promise<PermissionDecision | undefined> {
    const result = await options.approvals.settle(id, { status, decidedBy: decision.decidedBy });
    if (!result.ok) {
      // Settled by something else first (the store expires a click that came after expiresAt):
      // whoever waits still gets that decision, so a run never hangs on an approval.
      if (result.reason === 'already-decided') await settleWaiter(id, result.record.status === 'pending' ? 'expired' : result.record.status, result.record);
      return undefined;
    }
    const waiter = waiters.get(id);
    waiters.delete(id);
    try {
      await options.runs.appendEvent(result.record.runId, { type: 'approval', tool: result.record.toolName, outcome: status, decidedBy: decision.decidedBy });
      if (options.audit) {
        await auditApprovalDecision(options.audit, options.runs, result.record, status, decision.decidedBy).catch((error: unknown) =>
          options.logger.error('could not write an approval decision to the audit log', { approvalId: id, error }),
        );
      }
      const messageRef = waiter?.messageRef ?? result.record.messageRef;
      if (waiter && messageRef) {
        await waiter.surface
          .edit({ message: messageRef, text: `${banner}\n${waiter.text}`, buttons: [] })
          .catch((error: unknown) => options.logger.warn('could not edit the approval message', { error }));
      }
    } catch (error) {
      options.logger.error('could not record an approval decision', { approvalId: id, error });
    } finally {
      // The decision is made (and stored); whoever waits for it gets it, whatever else failed.
      waiter?.resolve(decision);
    }
    return decision;
  }

  /** Ends a wait with a decision read from the store (already verified: a forged record reads as denied). */
  async function settleWaiter(
    id: string,
    status: 'approved' | 'approved-for-run' | 'denied' | 'expired',
    record: { messageRef?: string; decidedBy?: string; decidedAt?: number; tampered?: true },
  ): Promise<void> {
    const waiter = waiters.get(id);
    if (!waiter) return;
    waiters.delete(id);
    const messageRef = waiter.messageRef ?? record.messageRef;
    if (messageRef) {
      await waiter.surface
        .edit({
          message: messageRef,
          text: `${decidedBanner({ ...record, status }, waiter.surface, waiter.grant)}\n${waiter.text}`,
          buttons: [],
        })
        .catch((error: unknown) => options.logger.warn('could not edit the approval message', { error }));
    }
    if (record.tampered) waiter.resolve({ outcome: 'denied', note: 'the stored approval was changed outside TSUKA' });
    else if (status === 'expired') waiter.resolve({ outcome: 'expired', note: 'nobody decided in time' });
    else
      waiter.resolve({
        outcome: status,
        decidedBy: record.decidedBy,
        ...(status === 'denied' && record.decidedBy ? { note: `denied by ${record.decidedBy}` } : {}),
      });
  }

  /**
   * Decided (and recorded) on another replica: show it on the prompt and let the run go on. The
   * message only says "look again": what counts is the stored record, and only if its signature
   * verifies — a forged record denies, a pending one is ignored; nothing of the message is shown.
   */
  async function decidedElsewhere(id: string): Promise<void> {
    if (!waiters.has(id)) return;
    const record = await options.approvals.get(id).catch((error: unknown) => {
      options.logger.warn('could not read an approval decided elsewhere', { approvalId: id, error });
      return undefined;
    });
    if (!record || !DECIDED_STATUSES.has(record.status)) {
      options.logger.warn('ignored an approval message: the stored approval is not decided', { approvalId: id, stored: record?.status });
      return;
    }
    await settleWaiter(id, record.status as 'approved' | 'approved-for-run' | 'denied' | 'expired', record);
  }

  return {
    pendingCount: () => waiters.size,
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
    promptFor({ surface, thread, requester, aroundCard }) {
      return {
        async ask(request, signal) {
          const id = randomBytes(6).toString('hex');
          const rule = await approversOf(request, surface, thread);
          const approvers = rule.approvers;
          const text = describeRequest({ ...request, requesterId: requester }, surface, approvers, { admins: adminsOn(surface), alone: rule.alone });
          const buttons: Button[] = [
            { actionId: APPROVE_ACTION, label: 'Approve', style: 'success', value: id },
            ...(request.allowForRun && request.riskLevel === 'RESTRICTED'
              ? [{ actionId: APPROVE_RUN_ACTION, label: approveForRunLabel(request.grantScope ?? request.toolName), style: 'primary' as const, value: id }]
              : []),
            { actionId: DENY_ACTION, label: 'Deny', style: 'danger', value: id },
          ];
          await options.approvals.create({
            id,
            runId: request.runId,
            toolCallId: request.toolCallId,
            toolName: request.toolName,
            riskLevel: request.riskLevel,
            summary: request.summary,
            requesterId: requester,
            approvers,
            expiresAt: now() + options.timeoutMs,
          });
          const decided = new Promise<PermissionDecision>((resolve) =>
            waiters.set(id, { resolve, surface, text, grant: request.grantScope ?? request.toolName }),
          );
          // Listening before the buttons exist: a click on any replica reaches this run at once.
          const unsubscribe = options.coordination?.shared
            ? await options.coordination.subscribe(`approval:${id}`, () => void decidedElsewhere(id))
            : undefined;
          // The clock starts with the record (its expiresAt), not when the slower post returns.
          const timer = setTimeout(() => {
            void settleAndShow(
              id,
              { outcome: 'expired', note: 'nobody decided in time' },
              'expired',
              `⌛ Expired after ${Math.round(options.timeoutMs / 1000)} s without a decision — denied.`,
            );
          }, options.timeoutMs);
          try {
            await options.runs.appendEvent(request.runId, {
              type: 'note',
              text: `approval requested: ${request.toolName} (${request.riskLevel}) — ${request.summary}`,
            });
            const expires = `⌛ Expires at ${clock(now() + options.timeoutMs)} (in ${Math.max(1, Math.round(options.timeoutMs / 60_000))} min) if nobody decides — then it is denied.`;
            const post = () => surface.post({ thread, text: `${text}\n${expires}`, buttons });
            const messageRef = await (aroundCard ? aroundCard(request, post) : post());
            const waiter = waiters.get(id);
            if (waiter) waiter.messageRef = messageRef;
            const record = await options.approvals.setMessageRef(id, messageRef);
            if (record?.tampered) await settleWaiter(id, 'denied', record);
            else if (record && record.status !== 'pending') {
              // Decided (expired, stopped) while the prompt was being posted: it must not keep live buttons.
              await surface.edit({
                message: messageRef,
                text: `${decidedBanner(record, surface)}\n${text}`,
                buttons: [],
              });
            }
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
              ? settleAndShow(
                  id,
                  { outcome: 'expired', note: 'TSUKA is restarting' },
                  'expired',
                  '⌛ Expired — TSUKA is restarting; ask again once it is back.',
                )
              : settleAndShow(id, { outcome: 'denied', note: 'the run was stopped' }, 'denied', '⏹ Cancelled — the run was stopped.'));
          signal.addEventListener('abort', onAbort, { once: true });
          if (signal.aborted) onAbort();
          try {
            return await decided;
          } finally {
            clearTimeout(timer);
            signal.removeEventListener('abort', onAbort);
            await unsubscribe?.().catch(() => undefined);
          }
        },
      };
    },
    async handleButton(event, surface) {
      if (!ACTIONS.has(event.actionId)) return false;
      const record = await options.approvals.get(event.value);
      if (!record) {
        await event.replyEphemeral('This approval is no longer active.');
        return true;
      }
      if (record.tampered) {
        // Whoever clicks: a forged record only ever denies, and the run waiting here learns it now.
        await settleWaiter(record.id, 'denied', record);
        await event.replyEphemeral('This approval was changed outside TSUKA (its signature does not match): it counts as denied.');
        return true;
      }
      if (record.status !== 'pending') {
        const who = record.decidedBy ? ` by ${surface.mention(record.decidedBy)}` : '';
        await event.replyEphemeral(`This was already decided: ${record.status}${who}.`);
        return true;
      }
      const verdict = mayDecide(record.approvers ?? 'requester', event.actionId === DENY_ACTION ? 'deny' : 'approve', {
        user: event.user,
        requester: record.requesterId,
        isAdmin: options.admins.includes(event.user),
      });
      if (!verdict.ok) {
        await event.replyEphemeral(verdict.why);
        return true;
      }
      if (event.actionId === APPROVE_RUN_ACTION && record.riskLevel !== 'RESTRICTED') {
        await event.replyEphemeral('"Approve for this run" is not available for dangerous actions.');
        return true;
      }
      const by = surface.mention(event.user);
      const at = clock(now());
      const [status, banner]: ['approved' | 'approved-for-run' | 'denied', string] =
        event.actionId === APPROVE_ACTION
          ? ['approved', `✅ Approved by ${by} · ${at}`]
          : event.actionId === APPROVE_RUN_ACTION
            ? ['approved-for-run', `✅ Approved \`${waiters.get(record.id)?.grant ?? record.toolName}\` for this run by ${by} · ${at}`]
            : ['denied', `⛔ Denied by ${by} · ${at}`];
      const hadWaiter = waiters.has(record.id);
      const decision = await settleAndShow(
        record.id,
        { outcome: status, decidedBy: event.user, note: status === 'denied' ? `denied by ${event.userName ?? event.user}` : undefined },
        status,
        banner,
      );
      if (!decision) await event.replyEphemeral('This was already decided.');
      else if (
        !hadWaiter &&
        options.coordination?.shared &&
        (await options.coordination
          // Only a nudge: the waiting replica reads the signed record and renders everything from it.
          .publish(`approval:${record.id}`, { status })
          .catch(() => 0)) > 0
      ) {
        // The replica whose run waits for it shows the decision and goes on.
      } else if (!hadWaiter && record.messageRef) {
        // Decided but nobody in this process waits for it (it belonged to an earlier process): show the decision anyway.
        await surface
          .edit({ message: record.messageRef, text: `${banner}\n> ${record.summary}`, buttons: [] })
          .catch((error: unknown) => options.logger.warn('could not edit the approval message', { error }));
      }
      return true;
    },
  };
}
