/** The tier a benchmark derives from measured quality (speed does not decide what a model can do). */
import type { ModelTier } from '../tools/tool.js';

/** Overall and tool-calling pass rates a LARGE model reaches. */
export const LARGE_TIER_MIN_SCORE = 0.85;
/** Overall pass rate of a MEDIUM model; its tool-calling rate must reach `MEDIUM_TIER_MIN_TOOL_SCORE`. */
export const MEDIUM_TIER_MIN_SCORE = 0.6;
export const MEDIUM_TIER_MIN_TOOL_SCORE = 0.5;

export function deriveTier(quality: { score: number; toolScore: number }): ModelTier {
  if (quality.score >= LARGE_TIER_MIN_SCORE && quality.toolScore >= LARGE_TIER_MIN_SCORE) return 'LARGE';
  if (quality.score >= MEDIUM_TIER_MIN_SCORE && quality.toolScore >= MEDIUM_TIER_MIN_TOOL_SCORE) return 'MEDIUM';
  return 'SMALL';
}
