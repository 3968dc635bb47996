/** The switchable current model behind `/tsuka model`, shared by every adapter. */
import type { ModelControl } from '../commands/command-dependencies.js';
import type { Engine } from './create-engine.js';
import { createOpenAICompatibleModel } from '../core/provider/openai-compatible-model.js';
import { noModelMessage } from './no-model-message.js';

export function createModelControl(engine: Engine, fetchImplementation?: typeof fetch): ModelControl {
  const current = engine.model;
  return {
    current: () => (current ? { model: current, tier: engine.tiers.tierFor(current.modelId), providerName: engine.modelInfo?.displayName ?? current.providerId } : undefined),
    async available() {
      const info = engine.modelInfo;
      if (!info) return current ? [current.modelId] : [];
      try {
        const response = await (fetchImplementation ?? fetch)(`${info.baseURL.replace(/\/$/, '')}/models`, { signal: AbortSignal.timeout(2500) });
        const body = (await response.json()) as { data?: { id?: unknown }[] };
        return (body.data ?? []).flatMap((entry) => (typeof entry.id === 'string' ? [entry.id] : []));
      } catch (error) {
        engine.logger.warn('could not list models', { error });
        return current ? [current.modelId] : [];
      }
    },
    async select(modelId) {
      const info = engine.modelInfo;
      if (!info || !current || !engine.modelSwitch) throw new Error('No model server is connected, so the model cannot be changed.');
      const endpointModel = createOpenAICompatibleModel({
        providerId: info.providerId,
        baseURL: info.baseURL,
        modelId,
        apiKey: engine.config.llm.apiKey,
        fetch: fetchImplementation,
        firstTokenTimeoutMs: engine.config.llm.firstTokenTimeoutMs,
        generationTimeoutMs: engine.config.llm.generationTimeoutMs,
        logger: engine.logger,
      });
      await engine.tiers.load(modelId);
      engine.modelSwitch.switchTo(endpointModel);
    },
    unavailableMessage: () => noModelMessage(engine.config),
  };
}
