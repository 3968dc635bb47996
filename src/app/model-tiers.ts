/**
 * The tier of a model: `TSUKA_LLM_TIER` when set, else its measured profile (`tsuka benchmark`),
 * else a guess from its name. Profiles are read from the store once per model id and cached, so
 * the per-turn lookup stays synchronous.
 */
import type { Logger } from '../core/logger.js';
import type { ModelTier } from '../core/tools/tool.js';
import type { ModelProfile, ModelProfileStore } from '../core/benchmark/model-profile.js';
import { resolveModelTier } from '../core/provider/model-tier.js';

export interface ModelTiers {
  tierFor(modelId: string): ModelTier;
  profileFor(modelId: string): ModelProfile | undefined;
  /** Whether the model's profile says it writes tool calls as text; undefined without a profile (the tier decides). */
  textToolCallsFor(modelId: string): boolean | undefined;
  /** Reads the stored profile of `modelId` into the cache. */
  load(modelId: string): Promise<ModelProfile | undefined>;
  /** Stores a new profile and uses it from now on. */
  save(profile: ModelProfile): Promise<void>;
  /** Forgets the measured profile (`tsuka benchmark --reset`): the tier comes from the setting or the name again. */
  reset(modelId: string): Promise<boolean>;
}

export function createModelTiers(options: { configured?: ModelTier; profiles: ModelProfileStore; logger: Logger }): ModelTiers {
  const cache = new Map<string, ModelProfile | undefined>();
  return {
    tierFor: (modelId) => resolveModelTier(modelId, { tier: options.configured ?? cache.get(modelId)?.tier }),
    profileFor: (modelId) => cache.get(modelId),
    textToolCallsFor: (modelId) => {
      const form = cache.get(modelId)?.toolCallForm;
      return form === undefined ? undefined : form !== 'native';
    },
    async load(modelId) {
      try {
        const profile = await options.profiles.get(modelId);
        cache.set(modelId, profile);
        return profile;
      } catch (error) {
        options.logger.warn('could not read the model profile; the tier comes from the name', { model: modelId, error });
        return undefined;
      }
    },
    async save(profile) {
      await options.profiles.save(profile);
      cache.set(profile.modelId, profile);
    },
    async reset(modelId) {
      const removed = await options.profiles.remove(modelId);
      cache.set(modelId, undefined);
      return removed;
    },
  };
}
