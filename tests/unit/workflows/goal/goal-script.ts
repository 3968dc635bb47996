/**
 * A scripted model for /goal runs whose calls may interleave (parallel steps): each request is
 * routed by what it asks — the planner, a step (by number), a review (by step), a summary — to
 * that caller's own queue of answers, so the order of concurrent calls does not matter.
 */
import type { ModelRequest, ModelStreamPart } from '../../../../src/core/model/language-model.js';
import type { ScriptedStep } from '../../../../src/core/model/scripted-model.js';
import { callerOf } from '../../../support/scripted-callers.js';

export type GoalAnswer = ModelStreamPart[] | ((request: ModelRequest) => ModelStreamPart[] | Promise<ModelStreamPart[]>);

/** `plan`, `condense`, `step:<n>`, `rework:<n>` (a step run again) and `review:<n>`. */
export type GoalScript = Record<string, GoalAnswer[]>;

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
