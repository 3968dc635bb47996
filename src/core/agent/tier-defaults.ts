/**
 * What a model's tier (measured by `tsuka benchmark`, else guessed from its name) decides besides the
 * tools it is offered: its default reasoning effort, and whether it is expected to write tool calls as
 * text. Small local models reason at length for little gain and often have no server-side tool
 * parser; larger ones call tools natively. Roles, characters, the caller, `/tsuka effort` and
 * `TSUKA_LLM_EFFORT` all come before the tier's effort.
 */
import type { ReasoningEffort } from '../model/language-model.js';
import type { ModelTier } from '../tools/tool.js';

export interface TierDefaults {
  effort: ReasoningEffort;
  /** The prompt says how to write a tool call as text (tool calls are read from text in any case). */
  textToolCalls: boolean;
}

export const TIER_DEFAULTS: Readonly<Record<ModelTier, TierDefaults>> = {
  SMALL: { effort: 'low', textToolCalls: true },
  MEDIUM: { effort: 'medium', textToolCalls: false },
  LARGE: { effort: 'medium', textToolCalls: false },
};

/** One line for the system prompt of a model expected to write tool calls as text. */
export const TEXT_TOOL_CALL_HINT =
  'If you cannot call a tool through the API, write the call on its own as <tool_call>{"name": "tool_name", "arguments": {"parameter": "value"}}</tool_call> and stop.';
