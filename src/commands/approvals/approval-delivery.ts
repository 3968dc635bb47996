/**
 * How the wait of an approval ends — the one place that gives a run its call's decision (issues 35
 * and 41):
 * - the first decision the store holds claims the waiter at once, so a timeout, a stop, a second
 *   click or a pub/sub nudge that comes later has nothing left to decide;
 * - the record is compared with the waiting call (its key, run, call and fingerprint) and an
 *   approval is used once (`consume`); anything else denies, and is logged and audited as tampered;
 * - "Approved" is written on the card only after the gate confirmed it for that call; an approval
 *   that a stop overtook says that the call did not run.
 */
import type { AuditLog } from '../../core/audit/audit-log.js';
import type { Logger } from '../../core/logger.js';
import type { PermissionDecision, PermissionOutcome } from '../../core/safety/permission-port.js';
import { describeBindingProblem, type ApprovalExpectation, type BindingProblem } from '../../core/store/approval-binding.js';
import type { ApprovalRecord, ApprovalStore } from '../../core/store/approval-store.js';
import type { RunStore } from '../../core/store/run-store.js';
import { auditApprovalDecision } from './approval-audit.js';
import { decidedBanner, STOPPED_BEFORE_RUN, tamperedBanner } from './approval-text.js';
import type { Button, ChatSurface } from '../chat-surface.js';

export type DecidedStatus = 'approved' | 'approved-for-run' | 'denied' | 'expired';

/** A run waiting in this process for one call's decision. */
export interface Waiter {
  resolve(decision: PermissionDecision): void;
  surface: ChatSurface;
  text: string;
  /** What "approve for this run" covers, for the decision banner. */
  grant: string;
  /** The prompt this run posted (its own, never one named by a stored record that may be forged). */
  messageRef?: string;
  /** The banner last shown (or to show once the card exists, when decided while it was being posted). */
  shown?: string;
  /** The waiting call as this run knows it, never read from the store. */
  expected: ApprovalExpectation;
  call: { runId: string; toolName: string; riskLevel: ApprovalRecord['riskLevel']; summary: string; requesterId?: string };
  /** The whole file a cut write preview stands for, for "Show whole file" (approval-whole-file.ts). */
  wholeFile?: { fileName: string; shownPath: string; content: string };
  /** The card's buttons, kept while an N-of-M approval counts its approvals (the card is edited, its buttons stay). */
  buttons?: Button[];
  /** The run's signal: a stop that overtakes an approval is shown on the card. */
  signal: AbortSignal;
}

export interface ApprovalDeliveryOptions {
  approvals: ApprovalStore;
  runs: RunStore;
  logger: Logger;
  audit?: AuditLog;
}

/** How a decision made here is shown: the banner, and the note the agent reads on a denial. */
export interface Shown {
  banner: string;
  decidedBy?: string;
  note?: string;
}

export interface ApprovalDelivery {
  /** Settles `id` as `status` in the store and ends its wait here; true when this call decided it. */
  settleAndShow(id: string, status: DecidedStatus, shown: Shown): Promise<boolean>;
  /** Ends the wait on `id`, if it waits here, with `record` as the store returned it (verified). */
  deliver(id: string, record: ApprovalRecord, shown?: Shown): Promise<void>;
  /** The card now exists: a decision shown before it was posted is shown on it now. */
  cardPosted(waiter: Waiter, messageRef: string): Promise<void>;
  /** The stored record of `id` is gone (Redis came back empty): its wait ends now, denied, the card saying why. */
  vanished(id: string): Promise<void>;
  /** Resolves when every decision being recorded and shown has finished (shutdown waits for it). */
  drain(): Promise<void>;
}

/** What the card and the agent are told when a pending approval's record vanished (issue 41). */
export const VANISHED_BANNER = '⛔ Denied — this approval’s record vanished: Redis came back empty, so nobody can decide it. Nothing ran; ask again.';

const isApproval = (status: string): status is 'approved' | 'approved-for-run' => status === 'approved' || status === 'approved-for-run';

function decisionOf(record: ApprovalRecord, note: string | undefined): PermissionDecision {
  if (record.status === 'expired') return { outcome: 'expired', note: note ?? 'nobody decided in time' };
  const outcome = record.status as DecidedStatus;
  const decidedBy = record.decidedBy;
  const denial = outcome === 'denied' ? (note ?? (decidedBy ? `denied by ${decidedBy}` : undefined)) : note;
  return { outcome, ...(decidedBy ? { decidedBy } : {}), ...(denial ? { note: denial } : {}) };
}

export function createApprovalDelivery(options: ApprovalDeliveryOptions, waiters: Map<string, Waiter>): ApprovalDelivery {
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  };

  const showOnCard = (waiter: Waiter, banner: string): Promise<void> => {
    waiter.shown = banner;
    return waiter.messageRef
      ? waiter.surface
          .edit({ message: waiter.messageRef, text: `${banner}\n${waiter.text}`, buttons: [] })
          .catch((error: unknown) => options.logger.warn('could not edit the approval message', { error }))
      : Promise.resolve();
  };

  /** What stops `record` from deciding the waiting call: tampered, another call, used already, or the store failed. */
  async function problemOf(id: string, record: ApprovalRecord, waiter: Waiter): Promise<BindingProblem | 'unavailable' | undefined> {
    if (record.tampered) return record.tamperedBecause ?? 'signature';
    if (!isApproval(record.status)) return undefined;
    const used = await options.approvals.consume(id, waiter.expected).catch((error: unknown) => {
      options.logger.error('could not record that an approval was used: the call is denied', { approvalId: id, error });
      return { ok: false as const, problem: 'unknown' as const };
    });
    if (used.ok) return undefined;
    return used.problem === 'pending' || used.problem === 'unknown' ? 'unavailable' : used.problem;
  }

  async function refuse(id: string, waiter: Waiter, problem: BindingProblem): Promise<void> {
    const why = describeBindingProblem(problem);
    options.logger.error(`an approval was refused as tampered (${why}): the call is denied`, {
      approvalId: id,
      runId: waiter.call.runId,
      tool: waiter.call.toolName,
      problem,
    });
    try {
      await options.runs.appendEvent(waiter.call.runId, { type: 'approval', tool: waiter.call.toolName, outcome: 'denied' });
      if (options.audit) await auditApprovalDecision(options.audit, options.runs, waiter.call, 'denied', undefined, { why });
    } catch (error) {
      options.logger.error('could not record a refused approval', { approvalId: id, error });
    }
    await showOnCard(waiter, tamperedBanner(problem));
    waiter.resolve({ outcome: 'denied', note: 'the stored approval was changed outside TSUKA' });
  }

  /** Hands an approval to the gate; the card says "Approved" once the gate confirmed it, or that a stop overtook it. */
  function release(waiter: Waiter, decision: PermissionDecision, banner: string): void {
    let shown = false;
    const show = (final: PermissionOutcome): void => {
      if (shown) return;
      shown = true;
      waiter.signal.removeEventListener('abort', onAbort);
      void track(showOnCard(waiter, isApproval(final) ? banner : `${banner} ${STOPPED_BEFORE_RUN}`));
    };
    // A gate that lost the race to a stop never confirms: the stop itself says the call did not run.
    const onAbort = (): void => show('denied');
    waiter.signal.addEventListener('abort', onAbort, { once: true });
    waiter.resolve({ ...decision, confirm: show });
    // Stopped already (the stop came as the decision was stored): the gate denies, and the card says so.
    if (waiter.signal.aborted) onAbort();
  }

  async function deliver(id: string, record: ApprovalRecord, shown?: Shown): Promise<void> {
    const waiter = waiters.get(id);
    if (!waiter || (record.status === 'pending' && !record.tampered)) return;
    // Claimed before anything is awaited: only this decision ends this wait.
    waiters.delete(id);
    const problem = await problemOf(id, record, waiter);
    if (problem === 'unavailable') {
      await showOnCard(waiter, '⛔ Denied — the decision could not be recorded; ask again.');
      waiter.resolve({ outcome: 'denied', note: 'the approval could not be recorded' });
      return;
    }
    if (problem) return refuse(id, waiter, problem);
    const decision = decisionOf(record, shown?.note);
    const banner = shown?.banner ?? decidedBanner(record, waiter.surface, waiter.grant);
    if (isApproval(decision.outcome)) return release(waiter, decision, banner);
    await showOnCard(waiter, banner);
    waiter.resolve(decision);
  }

  async function settleAndShowNow(id: string, status: DecidedStatus, shown: Shown): Promise<boolean> {
    const result = await options.approvals.settle(id, { status, decidedBy: shown.decidedBy });
    if (!result.ok) {
      // Settled by something else first (the store expires a click that came after expiresAt):
      // whoever waits gets that decision, so a run never hangs on an approval.
      if (result.reason === 'already-decided') await deliver(id, result.record);
      return false;
    }
    try {
      await options.runs.appendEvent(result.record.runId, { type: 'approval', tool: result.record.toolName, outcome: status, decidedBy: shown.decidedBy });
      if (options.audit) {
        await auditApprovalDecision(options.audit, options.runs, result.record, status, shown.decidedBy).catch((error: unknown) =>
          options.logger.error('could not write an approval decision to the audit log', { approvalId: id, error }),
        );
      }
    } catch (error) {
      options.logger.error('could not record an approval decision', { approvalId: id, error });
    }
    // The decision is made (and stored); whoever waits for it gets it, whatever else failed.
    await deliver(id, result.record, shown);
    return true;
  }

  return {
    settleAndShow: (id, status, shown) => track(settleAndShowNow(id, status, shown)),
    deliver,
    async vanished(id) {
      const waiter = waiters.get(id);
      if (!waiter) return;
      waiters.delete(id);
      options.logger.error('a pending approval’s record vanished from the store (Redis came back empty): the call is denied', {
        approvalId: id,
        runId: waiter.call.runId,
        tool: waiter.call.toolName,
      });
      await track(showOnCard(waiter, VANISHED_BANNER));
      waiter.resolve({ outcome: 'denied', note: 'the approval record vanished (Redis came back empty); nothing ran — ask again' });
    },
    cardPosted(waiter, messageRef) {
      waiter.messageRef = messageRef;
      return waiter.shown === undefined ? Promise.resolve() : track(showOnCard(waiter, waiter.shown));
    },
    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
