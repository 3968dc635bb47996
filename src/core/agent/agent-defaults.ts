/**
 * The agent loop's limits and their defaults, in one place. Callers override them per runner
 * through `createAgentRunner({ settings })`.
 */
import type { LanguageModel, ReasoningEffort } from '../model/language-model.js';
import type { ModelTier } from '../tools/tool.js';

/** Tunables of one agent runner. */
export interface AgentSettings {
  /** Tool rounds (model answers with tool calls) per turn before the loop stops and says so. */
  maxToolRounds: number;
  /** A tool result above this (estimated) is cut to head and tail with a paging hint. */
  maxToolResultTokens: number;
  /** System prompt + history sent to the model is pruned to this many (estimated) tokens. */
  historyBudgetTokens: number;
  /** Characters of long-term memory put into the system prompt. */
  memoryBudgetChars: number;
  /** The model's capability tier: hides tools whose `requiredTier` it does not reach. */
  tier: ModelTier;
  /** Whether the model takes tools natively; otherwise tools are described in the prompt as text. */
  nativeToolCalling: boolean;
  /**
   * Whether the model is expected to write tool calls as text even when offered tools natively (its
   * profile recorded a text form); undefined leaves it to the tier (`tier-defaults.ts`).
   */
  textToolCallsExpected?: boolean;
  /** The configuration's default reasoning effort, last in the cascade. */
  defaultEffort?: ReasoningEffort;
  /** Starting chars-per-token estimate before the server's usage calibrates it. */
  initialCharsPerToken: number;
}

export const DEFAULT_MAX_TOOL_ROUNDS = 15;
export const DEFAULT_MAX_TOOL_RESULT_TOKENS = 4000;
/** Share of the model's context window that system prompt + history may fill. */
export const HISTORY_BUDGET_SHARE_OF_CONTEXT = 0.75;
/** History budget when the server did not tell us its context window. */
export const DEFAULT_HISTORY_BUDGET_TOKENS = 8192;
export const DEFAULT_MEMORY_BUDGET_CHARS = 2000;
export const DEFAULT_MODEL_TIER: ModelTier = 'MEDIUM';
export const DEFAULT_INITIAL_CHARS_PER_TOKEN = 3.5;
/** Calibrated chars-per-token stays within these bounds, whatever a server reports. */
export const MIN_CHARS_PER_TOKEN = 1.5;
export const MAX_CHARS_PER_TOKEN = 8;
/** Weight of a new observation when smoothing the chars-per-token estimate. */
export const CHARS_PER_TOKEN_SMOOTHING = 0.5;
/** Role labels, separators and the like that every message costs beyond its text. */
export const MESSAGE_OVERHEAD_CHARS = 16;

/** The settings for `model`, with `overrides` applied over the defaults. */
export function resolveAgentSettings(model: LanguageModel, overrides: Partial<AgentSettings> = {}): AgentSettings {
  const historyBudgetTokens =
    model.contextWindow !== undefined && model.contextWindow > 0
      ? Math.floor(model.contextWindow * HISTORY_BUDGET_SHARE_OF_CONTEXT)
      : DEFAULT_HISTORY_BUDGET_TOKENS;
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) as Partial<AgentSettings>;
  return {
    maxToolRounds: DEFAULT_MAX_TOOL_ROUNDS,
    maxToolResultTokens: DEFAULT_MAX_TOOL_RESULT_TOKENS,
    historyBudgetTokens,
    memoryBudgetChars: DEFAULT_MEMORY_BUDGET_CHARS,
    tier: DEFAULT_MODEL_TIER,
    nativeToolCalling: true,
    initialCharsPerToken: DEFAULT_INITIAL_CHARS_PER_TOKEN,
    ...defined,
  };
}
