/**
 * The current model behind `/tsuka model`, shared by every adapter. While no model server answers,
 * it probes again every `probeIntervalMs` (10 s) and whenever a mention asks for the model, so a
 * server started after TSUKA is used from the next mention on.
 */
import type { ModelControl } from '../commands/command-dependencies.js';
import type { Engine } from './create-engine.js';
import type { LanguageModel } from '../core/model/language-model.js';
import { noModelMessage } from './no-model-message.js';
import { connectModelServer, createEndpointModel, findModelServer, type ModelConnection } from './model-connection.js';

/** How often TSUKA looks for a model server while none answers. */
export const MODEL_PROBE_INTERVAL_MS = 10_000;

export interface AppModelControl extends ModelControl {
  /** Probes now when no model is connected (at most one probe at a time). */
  refresh(): Promise<void>;
  /** Does the connected server answer right now? Injected models count as answering. */
  reachable(): Promise<boolean>;
  /** One line for the start banner: the server in use, or why there is none. */
  describe(): string;
  stop(): void;
}

export interface ModelControlOptions {
  fetch?: typeof fetch;
  probeIntervalMs?: number;
  /** Told once when a server that did not answer at start is connected. */
  onConnected?: (description: string) => void;
}

export function createModelControl(engine: Engine, options: ModelControlOptions = {}): AppModelControl {
  const { config, logger } = engine;
  let connection: ModelConnection | undefined = engine.modelConnection;
  const injected: LanguageModel | undefined = connection ? undefined : engine.model;
  let probing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const currentModel = (): LanguageModel | undefined => connection?.model ?? injected;

  const probe = (): Promise<void> => {
    if (currentModel()) return Promise.resolve();
    probing ??= (async () => {
      try {
        const info = await findModelServer(config, { fetch: options.fetch, logger });
        if (!info || currentModel()) return;
        connection = await connectModelServer(config, info, { fetch: options.fetch, logger });
        await engine.tiers.load(connection.model.modelId);
        if (timer) clearInterval(timer);
        options.onConnected?.(describe());
      } catch (error) {
        logger.warn('model probe failed', { error });
      } finally {
        probing = undefined;
      }
    })();
    return probing;
  };

  const describe = (): string => {
    if (connection) return `Model: ${connection.model.modelId} on ${connection.info.displayName} (${connection.info.baseURL})`;
    if (injected) return `Model: ${injected.modelId}`;
    const every = `trying again every ${Math.round((options.probeIntervalMs ?? MODEL_PROBE_INTERVAL_MS) / 1000)} s and at every mention`;
    return config.llm.baseURL
      ? `Model: none — TSUKA_LLM_BASE_URL ${config.llm.baseURL} does not answer; ${every}.`
      : `Model: none — no local model server answered; ${every} (see \`npx tsuka doctor\`).`;
  };

  if (!currentModel() && engine.discovers) {
    timer = setInterval(() => void probe(), options.probeIntervalMs ?? MODEL_PROBE_INTERVAL_MS);
    timer.unref();
  }

  return {
    current() {
      const model = currentModel();
      return model ? { model, tier: engine.tiers.tierFor(model.modelId), providerName: connection?.info.displayName ?? model.providerId } : undefined;
    },
    refresh: () => (engine.discovers ? probe() : Promise.resolve()),
    async available() {
      if (!connection) return injected ? [injected.modelId] : [];
      try {
        const response = await (options.fetch ?? fetch)(`${connection.info.baseURL.replace(/\/$/, '')}/models`, {
          headers: authorization(connection),
          signal: AbortSignal.timeout(2500),
        });
        const body = (await response.json()) as { data?: { id?: unknown }[] };
        return (body.data ?? []).flatMap((entry) => (typeof entry.id === 'string' ? [entry.id] : []));
      } catch (error) {
        logger.warn('could not list models', { error });
        return [connection.model.modelId];
      }
    },
    async select(modelId) {
      if (!connection) throw new Error('No model server is connected, so the model cannot be changed.');
      await engine.tiers.load(modelId);
      connection.modelSwitch.switchTo(createEndpointModel(config, connection.info, modelId, connection.apiKey, { fetch: options.fetch, logger }));
    },
    async reachable() {
      if (!connection) return injected !== undefined;
      try {
        const response = await (options.fetch ?? fetch)(`${connection.info.baseURL.replace(/\/$/, '')}/models`, {
          headers: authorization(connection),
          signal: AbortSignal.timeout(2000),
        });
        return response.ok;
      } catch (error) {
        logger.debug('model server not reachable', { error });
        return false;
      }
    },
    describe,
    unavailableMessage: () => noModelMessage(config, options.probeIntervalMs ?? MODEL_PROBE_INTERVAL_MS),
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

function authorization(connection: ModelConnection): Record<string, string> {
  return connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {};
}
