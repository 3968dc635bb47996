/**
 * The model's tier decides which tools it is offered. A measured profile knows best; without one,
 * the parameter count in the model's name is a fair guess (`qwen2.5-coder:7b`, `Llama-3.3-70B`).
 */
import type { ModelTier } from '../tools/tool.js';

/** Up to this many billion parameters a model is SMALL. */
export const SMALL_TIER_MAX_BILLIONS = 12;
/** Up to this many billion parameters a model is MEDIUM; above, LARGE. */
export const MEDIUM_TIER_MAX_BILLIONS = 35;
/** Mixture-of-experts names count experts × expert size; shared layers make the total smaller. */
const MIXTURE_SHARED_FACTOR = 0.84;

/**
 * `8x7b`, `70B`, `1.5b`, `135m`, `e4b` (effective size), `a3b` (active parameters): a size must stand
 * on its own between separators, so `Q4_K_M` or `3.2` never count.
 */
const SIZE_PATTERN = /(?:^|[^a-z0-9.])(?:(\d+)x)?([ae])?(\d+(?:\.\d+)?)([bm])(?![a-z0-9])/gi;

/** The parameter count in billions that a model name states, or undefined. */
export function parameterBillionsFromName(modelId: string): number | undefined {
  // The largest size wins: `qwen3-30b-a3b` is about 30B in memory, 3B active per token.
  let largest: number | undefined;
  for (const match of modelId.matchAll(SIZE_PATTERN)) {
    const experts = match[1] ? Number(match[1]) : 1;
    const size = Number(match[3]) / (match[4]!.toLowerCase() === 'm' ? 1000 : 1);
    const billions = experts > 1 ? experts * size * MIXTURE_SHARED_FACTOR : size;
    if (largest === undefined || billions > largest) largest = billions;
  }
  return largest;
}

/** SMALL up to 12B, MEDIUM up to 35B, LARGE above; MEDIUM when the name says nothing. */
export function tierFromModelName(modelId: string): ModelTier {
  const billions = parameterBillionsFromName(modelId);
  if (billions === undefined) return 'MEDIUM';
  if (billions <= SMALL_TIER_MAX_BILLIONS) return 'SMALL';
  if (billions <= MEDIUM_TIER_MAX_BILLIONS) return 'MEDIUM';
  return 'LARGE';
}

/** The tier to use: a measured profile wins over the name. */
export function resolveModelTier(modelId: string, profile?: { tier?: ModelTier }): ModelTier {
  return profile?.tier ?? tierFromModelName(modelId);
}
