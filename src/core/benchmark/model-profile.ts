/**
 * A measured model profile (`tsuka benchmark`), stored per model id in the state store. At start the
 * tier comes from it when there is one (`TSUKA_LLM_TIER` still overrides; the name is the last resort).
 */
import type { Store } from '../store/open-store.js';
import type { ModelTier } from '../tools/tool.js';
import type { TextToolCallForm } from '../provider/text-tool-call-markup.js';
import type { BenchmarkCategory } from './benchmark-cases.js';

export interface BenchmarkCaseResult {
  id: string;
  category: BenchmarkCategory;
  passed: boolean;
  /** Why it failed. */
  reason?: string;
  ttftMs?: number;
}

export interface ModelProfile {
  modelId: string;
  providerId: string;
  /** ISO time of the measurement. */
  measuredAt: string;
  tier: ModelTier;
  /** Median time to the first token over the quality cases. */
  ttftMs?: number;
  generationTokensPerSecond?: number;
  promptTokensPerSecond?: number;
  /** How the model's tool calls came back: parsed by the server, or written as text in one of these forms. */
  toolCallForm?: 'native' | TextToolCallForm;
  quality: { passed: number; total: number; score: number; toolScore: number };
  cases: BenchmarkCaseResult[];
}

const NAMESPACE = 'model-profiles';

export interface ModelProfileStore {
  get(modelId: string): Promise<ModelProfile | undefined>;
  save(profile: ModelProfile): Promise<void>;
  /** Forgets the stored profile of `modelId`; false when there was none. */
  remove(modelId: string): Promise<boolean>;
}

export function createModelProfileStore(store: Store): ModelProfileStore {
  const namespace = store.namespace<ModelProfile>(NAMESPACE);
  return {
    get: (modelId) => namespace.get(modelId),
    save: (profile) => namespace.set(profile.modelId, profile),
    remove: (modelId) => namespace.delete(modelId),
  };
}
