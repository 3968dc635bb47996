import type { FinishReason } from '../model/language-model.js';

/** What the loop knows after a model call and its tool calls. */
export interface StepState {
  /** Model answers so far in this turn that contained tool calls. */
  toolRounds: number;
  /** Tool calls in the latest model answer. */
  lastToolCallCount: number;
  lastFinishReason: FinishReason;
}

/** A named predicate on the loop's state; true means stop. */
export type StopCondition = (state: StepState) => boolean;

/** Stop when the model answered without calling a tool: that answer is final. */
export const hasNoToolCalls = (): StopCondition => (state) => state.lastToolCallCount === 0;

/** Stop once `maxRounds` rounds with tool calls have run. */
export const toolRoundCountIs =
  (maxRounds: number): StopCondition =>
  (state) =>
    state.toolRounds >= maxRounds;

/** The first condition that holds, or undefined to go on. */
export function firstStopCondition<Name extends string>(conditions: Record<Name, StopCondition>, state: StepState): Name | undefined {
  for (const [name, condition] of Object.entries(conditions) as [Name, StopCondition][]) {
    if (condition(state)) return name;
  }
  return undefined;
}
