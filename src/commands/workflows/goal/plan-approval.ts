/**
 * Waits for a person to agree to a /goal's plan (issue 25): posts the plan card with Run plan /
 * Edit / Cancel, takes a reply with a changed plan as the new plan (a new card), and resolves to
 * the plan to run — or undefined when cancelled or left waiting too long. Nothing runs before.
 */
import { AbortedError } from '../../../core/errors.js';
import { parsePlan } from '../../../core/workflows/goal/plan-parser.js';
import type { GoalPlan } from '../../../core/workflows/goal/run-goal.js';
import type { ChatSurface, MessageRef } from '../../chat-surface.js';
import type { CommandDependencies } from '../../command-dependencies.js';
import type { WorkflowSession } from '../workflow-session.js';
import { planButtons, planCardText } from './plan-card.js';
import type { PlanDecision, PlanGates } from './plan-gate.js';

/** A plan nobody decides on within this time ends the goal (nothing ran). */
export const PLAN_WAIT_MS = 24 * 60 * 60_000;

export interface PlanApprovalContext {
  deps: CommandDependencies;
  session: WorkflowSession;
  surface: ChatSurface;
  gates: PlanGates;
  requester: string;
  budget?: string;
  /** Called with an edited plan before its card is shown (members, reviewer, step count). */
  adopt(plan: GoalPlan): void;
  /** Stores the plan shown (and whether it was agreed). */
  remember(plan: GoalPlan, approved: boolean): Promise<void>;
  waitMs?: number;
}

export async function awaitPlanApproval(context: PlanApprovalContext, first: GoalPlan): Promise<GoalPlan | undefined> {
  const { deps, session, surface } = context;
  const cardText = (plan: GoalPlan) =>
    deps.maskSecrets(
      planCardText(plan, {
        roster: deps.roster,
        toolSchemas: deps.toolSchemas,
        requester: surface.mention(context.requester),
        ...(context.budget ? { budget: context.budget } : {}),
      }),
    );
  let plan = first;
  let text = cardText(plan);
  await context.remember(plan, false);
  await deps.runs.appendEvent(session.runId, { type: 'note', text });
  let card: MessageRef = await surface.post({ thread: session.thread, text, buttons: planButtons(session.runId) });
  session.io.activity('⏸ waiting for Run plan');

  const decisions: PlanDecision[] = [];
  let wake: () => void = () => undefined;
  const close = await context.gates.open({
    runId: session.runId,
    thread: session.thread,
    requester: context.requester,
    onDecision: (decision) => {
      decisions.push(decision);
      wake();
    },
  });
  const signal = session.abort.signal;
  const deadline = Date.now() + (context.waitMs ?? PLAN_WAIT_MS);
  const settle = (suffix: string) => surface.edit({ message: card, text: `${text}\n${suffix}`, buttons: [] });
  try {
    for (;;) {
      const decision = decisions.shift() ?? (await nextDecision(signal, deadline, (resolve) => (wake = resolve), decisions));
      if (!decision) {
        await settle('⌛ No decision in time — nothing ran.');
        return undefined;
      }
      if (decision.kind === 'cancel') {
        await settle(`✖ Cancelled by ${surface.mention(decision.by)} — nothing ran.`);
        return undefined;
      }
      if (decision.kind === 'run') {
        await settle(`▶ Run by ${surface.mention(decision.by)}.`);
        await context.remember(plan, true);
        await deps.runs.appendEvent(session.runId, { type: 'note', text: `plan run by ${decision.by}` });
        return plan;
      }
      const edited = parsePlan(decision.kind === 'edit' ? decision.text : '', deps.roster);
      if (edited.kind === 'trivial') {
        await surface.post({ thread: session.thread, text: '⚠️ That reply has no plan steps (`AGENT: @name — task` lines): the plan is unchanged.' });
        continue;
      }
      await settle(`↻ Replaced by ${surface.mention(decision.by)}'s edit below.`);
      plan = edited;
      context.adopt(plan);
      text = cardText(plan);
      await context.remember(plan, false);
      await deps.runs.appendEvent(session.runId, { type: 'note', text: `plan edited by ${decision.by}\n${text}` });
      card = await surface.post({ thread: session.thread, text, buttons: planButtons(session.runId) });
    }
  } catch (error) {
    if (error instanceof AbortedError) await settle('⏹ Stopped — nothing ran.').catch(() => undefined);
    throw error;
  } finally {
    await close();
  }
}

// The next decision, undefined at the deadline; a stop rejects with AbortedError.
function nextDecision(signal: AbortSignal, deadline: number, listen: (resolve: () => void) => void, queue: PlanDecision[]): Promise<PlanDecision | undefined> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new AbortedError());
    const timer = setTimeout(() => done(() => resolve(undefined)), Math.max(0, deadline - Date.now()));
    timer.unref?.();
    const onAbort = () => done(() => reject(new AbortedError()));
    const done = (then: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      then();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    listen(() => done(() => resolve(queue.shift())));
  });
}
