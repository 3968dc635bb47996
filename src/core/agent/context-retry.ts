/**
 * A server that says the prompt does not fit its context window gets the turn once more with a
 * pruned history: the token estimate is corrected with the count the server gave (llama.cpp's
 * `n_prompt_tokens`), and the history budget is halved (and kept under the window it named).
 */
import type { ChatMessage, ToolDefinition } from '../model/language-model.js';
import { ContextTooLongError } from '../provider/server-errors.js';
import type { TokenEstimator } from './token-estimator.js';

/** The smaller history budget to retry with, or undefined when the error is no context overflow. */
export function budgetAfterContextError(
  error: Error,
  budgetTokens: number,
  sent: { messages: readonly ChatMessage[]; tools: readonly ToolDefinition[] | undefined; estimator: TokenEstimator },
): number | undefined {
  if (!(error instanceof ContextTooLongError)) return undefined;
  if (error.promptTokens !== undefined && error.promptTokens > 0) {
    sent.estimator.calibrate(sent.estimator.promptChars(sent.messages, sent.tools), error.promptTokens);
  }
  return Math.floor(Math.min(budgetTokens, error.contextWindow ?? budgetTokens) / 2);
}
