/**
 * Permission policy in front of the permission port (design §2.2, §6.7, §6.12): fail closed,
 * "approve for this run" per run and per grant — the tool and the call's scope (for
 * execute_command the program and subcommand, so approving `mkdir` never lets `node evil.js`
 * through) — and only for RESTRICTED, and one open question per run at a time so that prompts
 * in a thread arrive in the order the calls were made.
 */
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { PermissionDecision, PermissionOutcome, PermissionPrompt, PermissionRequest } from './permission-port.js';

/** Where a check stands: waiting behind another open question of its run, asking, or finished. */
export type PermissionWait = { request: PermissionRequest; state: 'queued' | 'asking' | 'done' };

export interface PermissionManagerOptions {
  prompt?: PermissionPrompt;
  logger?: Logger;
  /** Told as each check that asks moves through the run's one-question-at-a-time queue (a run card says who waits for what). */
  onWait?: (wait: PermissionWait) => void;
}

/** The core's single way to ask before a non-SAFE tool call. Never approves on error. */
export interface PermissionManager {
  check(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision>;
  /** Grants for the rest of `runId` (sorted): the tool name, or `tool: scope` (`execute_command: npm test`). */
  approvedForRun(runId: string): string[];
  /** Forgets the run's approvals (call when the run ends). */
  clearRun(runId: string): void;
  setPrompt(prompt: PermissionPrompt | undefined): void;
}

export const NO_PROMPT_NOTE = 'No one can approve this here, so it was denied (fail closed).';
const ABORTED_NOTE = 'The run was stopped before anyone decided, so it was denied.';
const PROMPT_FAILED_NOTE = 'Asking for approval failed, so it was denied (fail closed).';
const INVALID_DECISION_NOTE = 'The approval answer was not understood, so it was denied (fail closed).';
const EXPIRED_NOTE = 'No one decided in time, so it was denied.';
const APPROVED_FOR_RUN_NOTE = 'Approved earlier for this run.';
const OUTCOMES: ReadonlySet<PermissionOutcome> = new Set(['approved', 'approved-for-run', 'denied', 'expired']);

function abortPromise(signal: AbortSignal): { promise: Promise<'aborted'>; dispose(): void } {
  let onAbort: () => void = () => undefined;
  const promise = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** What one "approve for this run" grants: the tool, narrowed to the call's scope when it has one. */
function grantKey(request: PermissionRequest): string {
  return request.grantScope === undefined ? request.toolName : `${request.toolName}: ${request.grantScope}`;
}

function isDecision(value: unknown): value is PermissionDecision {
  if (typeof value !== 'object' || value === null) return false;
  const outcome = (value as { outcome?: unknown }).outcome;
  return typeof outcome === 'string' && OUTCOMES.has(outcome as PermissionOutcome);
}

/** Creates the manager; without a prompt every check is denied. */
export function createPermissionManager(options: PermissionManagerOptions = {}): PermissionManager {
  const logger = options.logger ?? silentLogger;
  let prompt = options.prompt;
  const approvals = new Map<string, Set<string>>();
  /** Per run: settles when the last queued check has finished with the prompt. */
  const queues = new Map<string, Promise<void>>();
  /** Per run: checks that asked or wait to ask. */
  const open = new Map<string, number>();
  const tell = (wait: PermissionWait): void => {
    try {
      options.onWait?.(wait);
    } catch (error) {
      logger.warn('a permission wait listener failed', { error });
    }
  };

  // A call decided for itself only (a network call after untrusted text) is never covered by a grant.
  const isApprovedForRun = (request: PermissionRequest): boolean =>
    request.riskLevel === 'RESTRICTED' && request.decideOnce !== true && (approvals.get(request.runId)?.has(grantKey(request)) ?? false);

  async function ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision> {
    if (signal.aborted) return { outcome: 'denied', note: ABORTED_NOTE };
    if (isApprovedForRun(request)) return { outcome: 'approved', note: APPROVED_FOR_RUN_NOTE };
    const current = prompt;
    if (!current) return { outcome: 'denied', note: NO_PROMPT_NOTE };

    const restricted = request.riskLevel === 'RESTRICTED' && request.decideOnce !== true;
    const abort = abortPromise(signal);
    let answer: unknown;
    try {
      answer = await Promise.race([current.ask({ ...request, allowForRun: restricted }, signal), abort.promise]);
    } catch (error) {
      logger.warn('permission prompt failed; denying', { requestId: request.id, toolName: request.toolName, error });
      return { outcome: 'denied', note: PROMPT_FAILED_NOTE };
    } finally {
      abort.dispose();
    }
    if (answer === 'aborted') return { outcome: 'denied', note: ABORTED_NOTE };
    if (!isDecision(answer)) {
      logger.warn('permission prompt returned an invalid decision; denying', { requestId: request.id, answer });
      return { outcome: 'denied', note: INVALID_DECISION_NOTE };
    }
    // A late abort wins over an approval that raced it (and the prompt is told, so it shows that).
    if (signal.aborted) return confirmed(answer, { outcome: 'denied', note: ABORTED_NOTE });

    const decision: PermissionDecision = { outcome: answer.outcome };
    if (typeof answer.decidedBy === 'string') decision.decidedBy = answer.decidedBy;
    if (typeof answer.note === 'string') decision.note = answer.note;
    if (decision.outcome === 'approved-for-run') {
      if (restricted) {
        const grants = approvals.get(request.runId) ?? new Set<string>();
        grants.add(grantKey(request));
        approvals.set(request.runId, grants);
      } else {
        decision.outcome = 'approved';
      }
    }
    if (decision.outcome === 'expired') decision.note ??= EXPIRED_NOTE;
    logger.info('permission decided', {
      requestId: request.id,
      runId: request.runId,
      toolName: request.toolName,
      grantScope: request.grantScope,
      outcome: decision.outcome,
      decidedBy: decision.decidedBy,
    });
    return confirmed(answer, decision);
  }

  /** Tells the prompt what the gate finally decided for its call, then returns it. */
  function confirmed(answer: PermissionDecision, decision: PermissionDecision): PermissionDecision {
    try {
      answer.confirm?.(decision.outcome);
    } catch (error) {
      logger.warn('a permission prompt failed to show the final decision', { error });
    }
    return decision;
  }

  async function check(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision> {
    if (isApprovedForRun(request)) return { outcome: 'approved', note: APPROVED_FOR_RUN_NOTE };
    if (!prompt) return { outcome: 'denied', note: NO_PROMPT_NOTE };

    const previous = queues.get(request.runId) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => done);
    queues.set(request.runId, tail);

    const behind = open.get(request.runId) ?? 0;
    open.set(request.runId, behind + 1);
    if (behind > 0) tell({ request, state: 'queued' });
    const abort = abortPromise(signal);
    try {
      const turn = await Promise.race([previous.then(() => 'turn' as const), abort.promise]);
      if (turn === 'aborted') return { outcome: 'denied', note: ABORTED_NOTE };
      tell({ request, state: 'asking' });
      return await ask(request, signal);
    } finally {
      abort.dispose();
      const left = (open.get(request.runId) ?? 1) - 1;
      if (left > 0) open.set(request.runId, left);
      else open.delete(request.runId);
      tell({ request, state: 'done' });
      release();
      // Drop the run's queue once it is drained, unless a newer check has extended it.
      void tail.then(() => {
        if (queues.get(request.runId) === tail) queues.delete(request.runId);
      });
    }
  }

  return {
    check,
    approvedForRun: (runId) => [...(approvals.get(runId) ?? [])].sort(),
    clearRun: (runId) => {
      approvals.delete(runId);
    },
    setPrompt: (next) => {
      prompt = next;
    },
  };
}
