/**
 * A scripted model for /goal runs whose calls may interleave (parallel steps): each request is
 * routed by what it asks — the planner, a step (by number), a review (by step), a summary — to
 * that caller's own queue of answers, so the order of concurrent calls does not matter.
 */
import type { ModelRequest, ModelStreamPart } from '../../../../src/core/model/language-model.js';
import type { ScriptedStep } from '../../../../src/core/model/scripted-model.js';
import { lastUserOf, systemOf } from '../workflow-harness.js';

export type GoalAnswer = ModelStreamPart[] | ((request: ModelRequest) => ModelStreamPart[] | Promise<ModelStreamPart[]>);

/** `plan`, `condense`, `step:<n>`, `rework:<n>` (a step run again) and `review:<n>`. */
export type GoalScript = Record<string, GoalAnswer[]>;

export function callerOf(request: ModelRequest): string {
  const messages = request.messages as { role: string; content: string }[];
  const system = systemOf({ messages });
  if (system.includes('You are the planner')) return 'plan';
  if (system.includes('You condense the output')) return 'condense';
  const user = lastUserOf({ messages });
  const review = /Review step (\d+),/.exec(user);
  if (review) return `review:${review[1]}`;
  const step = /Step (\d+) of \d+ is yours/.exec(user);
  if (step) return `${user.includes('sent your previous attempt back for rework') ? 'rework' : 'step'}:${step[1]}`;
  return 'unknown';
}

/** Enough routed steps for any test; `asked` lists the callers in the order they called. */
export function goalModelSteps(script: GoalScript, asked: string[] = []): ScriptedStep[] {
  const route: ScriptedStep = async (request) => {
    const caller = callerOf(request);
    asked.push(caller);
    const answer = script[caller]?.shift();
    if (!answer) throw new Error(`goal script: no answer left for ${caller}`);
    return typeof answer === 'function' ? answer(request) : answer;
  };
  return Array.from({ length: 60 }, () => route);
}
