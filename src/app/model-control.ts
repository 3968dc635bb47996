/**
 * The current model behind `/tsuka model`, shared by every adapter. While no model server answers,
 * it probes again every `probeIntervalMs` (10 s) and whenever a mention asks for the model, so a
 * server started after TSUKA is used from the next mention on. With several servers, the ones
 * marked down are probed on the same schedule; while all are down there is no model.
 */
import type { ModelControl } from '../commands/command-dependencies.js';
import type { Engine } from './create-engine.js';
import type { LanguageModel } from '../core/model/language-model.js';
import { noModelMessage } from './no-model-message.js';
import { probeVision } from '../core/provider/probe-vision.js';
import { answersModels, connectModelServer, findModelServer, type ModelConnection } from './model-connection.js';

/** How often TSUKA looks for a model server while none answers (and probes servers marked down). */
export const MODEL_PROBE_INTERVAL_MS = 10_000;

/** One model server as `/readyz` shows it. */
export interface ModelServerStatus {
  url: string;
  up: boolean;
  /** Generation slots in use (every replica) of `capacity`. */
  slotsInUse: number;
  capacity: number;
  /** Why it is down, when it is. */
  reason?: string;
}

export interface AppModelControl extends ModelControl {
  /** Probes now when no model is connected, or every server is down (at most one probe at a time). */
  refresh(): Promise<void>;
  /** Does a connected server answer right now? Injected models count as answering. */
  reachable(): Promise<boolean>;
  /** One line for the start banner: the server(s) in use, or why there is none. */
  describe(): string;
  /** Every model server: up or down, slots in use. Empty for an injected model. */
  servers(): Promise<ModelServerStatus[]>;
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
  const intervalMs = options.probeIntervalMs ?? MODEL_PROBE_INTERVAL_MS;
  const allDown = () => connection?.health !== undefined && connection.health.up().length === 0;
  const currentModel = (): LanguageModel | undefined => (allDown() ? undefined : (connection?.model ?? injected));
  const firstUp = (): string | undefined => (connection?.health ? connection.health.up()[0] : connection?.info.baseURL);

  const probe = (): Promise<void> => {
    if (connection?.health) return connection.health.probeDown();
    if (currentModel()) return Promise.resolve();
    probing ??= (async () => {
      try {
        const found = await findModelServer(config, { fetch: options.fetch, logger });
        if (!found || currentModel()) return;
        connection = await connectModelServer(config, found, {
          fetch: options.fetch,
          logger,
          slots: engine.coordination.slots,
          measuredSpeed: (modelId) => engine.tiers.profileFor(modelId)?.generationTokensPerSecond,
        });
        await engine.tiers.load(connection.model.modelId);
        // Several servers keep being probed while one is down; one server needs no more probes.
        if (timer && !connection.health) clearInterval(timer);
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
    const every = `trying again every ${Math.round(intervalMs / 1000)} s and at every mention`;
    if (connection?.health) {
      const up = connection.health.up();
      const list = connection.health.states().map((state) => `${state.server} ${state.up ? 'up' : 'down'}`);
      if (up.length === 0) return `Model: none — no server of TSUKA_LLM_BASE_URL answers (${list.join(', ')}); ${every}.`;
      return `Model: ${connection.model.modelId} on ${connection.info.displayName}, ${up.length} of ${connection.servers.length} servers up (${list.join(', ')}; ${connection.capacity} at once each)`;
    }
    if (connection) return `Model: ${connection.model.modelId} on ${connection.info.displayName} (${connection.info.baseURL})`;
    if (injected) return `Model: ${injected.modelId}`;
    if (config.llm.baseURLs.length > 1) return `Model: none — no server of TSUKA_LLM_BASE_URL ${config.llm.baseURLs.join(', ')} answers; ${every}.`;
    return config.llm.baseURL
      ? `Model: none — TSUKA_LLM_BASE_URL ${config.llm.baseURL} does not answer; ${every}.`
      : `Model: none — no local model server answered; ${every} (see \`./tsuka doctor\`).`;
  };

  // While nothing answers, and for as long as several servers may go down, look again on a schedule.
  if (engine.discovers && (!currentModel() || connection?.health)) {
    timer = setInterval(() => void probe(), intervalMs);
    timer.unref();
  }

  const listModels = async (server: string): Promise<string[]> => {
    const response = await (options.fetch ?? fetch)(`${server.replace(/\/$/, '')}/models`, {
      headers: authorization(connection!.apiKeyFor(server)),
      signal: AbortSignal.timeout(2500),
    });
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    return (body.data ?? []).flatMap((entry) => (typeof entry.id === 'string' ? [entry.id] : []));
  };

  const describeModel = (model: LanguageModel) => {
    const textToolCalls = engine.tiers.textToolCallsFor(model.modelId);
    return {
      model,
      tier: engine.tiers.tierFor(model.modelId),
      providerName: connection?.info.displayName ?? model.providerId,
      ...(textToolCalls === undefined ? {} : { textToolCalls }),
    };
  };

  return {
    current() {
      const model = currentModel();
      return model ? describeModel(model) : undefined;
    },
    serverUrls: () => connection?.servers ?? [],
    currentOn(server) {
      // A server marked down is not picked: the re-run says so instead of waiting on it.
      if (connection?.health && !connection.health.isUp(server)) return undefined;
      const model = connection?.modelOn(server);
      return model ? describeModel(model) : undefined;
    },
    // Probes only when there is no model: with several servers, only while all of them are down.
    refresh: () => (engine.discovers && !currentModel() ? probe() : Promise.resolve()),
    async available() {
      if (!connection) return injected ? [injected.modelId] : [];
      const server = firstUp();
      try {
        if (!server) throw new Error('no model server is up');
        return await listModels(server);
      } catch (error) {
        logger.warn('could not list models', { error });
        return [connection.model.modelId];
      }
    },
    async select(modelId) {
      if (!connection) throw new Error('No model server is connected, so the model cannot be changed.');
      await engine.tiers.load(modelId);
      connection.select(modelId);
    },
    async reachable() {
      if (!connection) return injected !== undefined;
      const servers = connection.health ? connection.health.up() : [connection.info.baseURL];
      const answers = await Promise.all(servers.map((server) => answersModels(server, connection!.apiKeyFor(server), options.fetch)));
      if (!answers.includes(true)) logger.debug('model server not reachable', { servers });
      return answers.includes(true);
    },
    describe,
    async servers() {
      if (!connection) return injected ? [] : config.llm.baseURLs.map((url) => ({ url, up: false, slotsInUse: 0, capacity: 0 }));
      const states = connection.health?.states() ?? [{ server: connection.info.baseURL, up: true }];
      return Promise.all(
        states.map(async (state) => ({
          url: state.server,
          up: state.up,
          slotsInUse: await connection!.inUse(state.server).catch(() => 0),
          capacity: connection!.capacity,
          ...('reason' in state && state.reason ? { reason: state.reason } : {}),
        })),
      );
    },
    unavailableMessage: () => noModelMessage(config, intervalMs),
    async seesImages() {
      if (config.llm.vision !== undefined) return config.llm.vision;
      const model = currentModel();
      const server = firstUp();
      if (!model || !connection || !server) return false;
      return probeVision({ baseURL: server, modelId: model.modelId, apiKey: connection.apiKeyFor(server), fetch: options.fetch });
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

function authorization(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}
