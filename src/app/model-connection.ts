/**
 * Finding and connecting the model servers, shared by start-up and the later re-probes: discovery
 * with the configured servers as the only candidates when they are set (all probed, the first that
 * answers names the provider and the model), then one endpoint model per server behind a switch
 * (`/tsuka model`) and the generation queue over all of them (the coordination's slot pool).
 */
import { hostname } from 'node:os';
import path from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import type { Logger } from '../core/logger.js';
import type { SlotPool } from '../core/coordination/coordination.js';
import { createLocalSlots } from '../core/coordination/local-slots.js';
import type { LanguageModel, QueuedModel } from '../core/model/language-model.js';
import { loadProviderCatalogue, type ProviderEntry } from '../core/provider/catalogue.js';
import { apiKeyFor, discoverModel, findCatalogueEntry, type DiscoveryResult } from '../core/provider/discovery.js';
import { createOpenAICompatibleModel } from '../core/provider/openai-compatible-model.js';
import { defaultMaxConcurrent } from '../core/model/queued-model.js';
import { createServerPoolModel } from '../core/model/server-pool-model.js';
import { createServerHealth, type ServerHealth } from '../core/model/server-health.js';
import { createSwitchableModel, type SwitchableModel } from '../core/model/switchable-model.js';

/** How long a health probe of a down server (`GET /v1/models`) may take. */
const HEALTH_PROBE_TIMEOUT_MS = 2_500;

/** What discovery found: the primary's answer, and every server to use. */
export interface FoundModelServers {
  /** The first server that answered (in configured order): provider, model, context window. */
  info: DiscoveryResult;
  /** Every server to use: the configured ones, or the one discovery chose. */
  servers: string[];
  /** Configured servers that did not answer (used once a probe finds them answering). */
  down: string[];
}

/** Connected model servers: the queued model the agents use, the servers and their health. */
export interface ModelConnection {
  model: QueuedModel;
  info: DiscoveryResult;
  servers: readonly string[];
  /** Generations at once per server. */
  capacity: number;
  /** With several servers: which answer (a failing one is skipped until a probe finds it again). */
  health?: ServerHealth;
  /** The key sent to the primary (TSUKA_LLM_API_KEY, else the catalogue entry's own variable). */
  apiKey?: string;
  /** The key sent to one server. */
  apiKeyFor(server: string): string | undefined;
  /** Generation slots of `server` in use, by every replica. */
  inUse(server: string): Promise<number>;
  /** Switches every server to `modelId` (`/tsuka model`); the queue stays the same. */
  select(modelId: string): void;
  /** The queue over `server` alone (a re-run picked it), sharing its slots with the whole queue; undefined for an unknown server. */
  modelOn(server: string): QueuedModel | undefined;
}

/** Probes the configured servers (alone), else the local servers; null when none answered. */
export async function findModelServer(config: AppConfig, options: { fetch?: typeof fetch; logger: Logger }): Promise<FoundModelServers | null> {
  const catalogue = await loadProviderCatalogue(path.join(config.rootDirectory, 'providers.json'));
  const discover = (baseURL: string | undefined) =>
    discoverModel({
      catalogue,
      configured: baseURL ? { baseURL, modelId: config.llm.modelId, apiKey: config.llm.apiKey } : undefined,
      fetch: options.fetch,
      apiKeys: catalogueApiKeys(config, catalogue),
      logger: options.logger,
    });
  const configured = config.llm.baseURLs;
  if (configured.length <= 1) {
    const info = await discover(configured[0]);
    return info ? { info, servers: [info.baseURL], down: [] } : null;
  }
  const answers = await Promise.all(configured.map(discover));
  const primary = answers.find((answer) => answer !== null);
  if (!primary) return null;
  const other = answers.filter((answer) => answer !== null && answer.modelId !== primary.modelId);
  if (other.length > 0)
    options.logger.warn('the model servers would use different models; every server is asked for the first one’s', {
      model: primary.modelId,
      others: other.map((answer) => `${answer!.baseURL}: ${answer!.modelId}`),
    });
  return { info: primary, servers: configured, down: configured.filter((_, index) => answers[index] === null) };
}

/** Builds the generation queue over the servers discovery found. */
export async function connectModelServer(
  config: AppConfig,
  found: FoundModelServers,
  options: {
    fetch?: typeof fetch;
    logger: Logger;
    slots?: SlotPool;
    /** Generation tokens per second `tsuka benchmark` measured for a model (the queue's estimates). */
    measuredSpeed?: (modelId: string) => number | undefined;
  },
): Promise<ModelConnection> {
  const { info, servers } = found;
  const catalogue = await loadProviderCatalogue(path.join(config.rootDirectory, 'providers.json'));
  const keys = new Map(servers.map((server) => [server, endpointApiKey(config, catalogue, server)]));
  const several = servers.length > 1;
  // With several servers a failing one is left at once for another (the pool retries), not retried in place.
  const endpoint = (server: string, modelId: string) =>
    createEndpointModel(config, { ...info, baseURL: server }, modelId, keys.get(server), { ...options, ...(several ? { maxRetries: 0 } : {}) });
  const modelId = config.llm.modelId ?? info.modelId;
  const switches = new Map<string, SwitchableModel>(servers.map((server) => [server, createSwitchableModel(endpoint(server, modelId))]));
  const health = several
    ? createServerHealth({
        servers,
        down: found.down,
        probe: (server) => answersModels(server, keys.get(server), options.fetch),
        logger: options.logger,
      })
    : undefined;
  const capacity = defaultMaxConcurrent(info.class, config.llm.concurrency);
  const slots = hostQualified(options.slots ?? createLocalSlots());
  // One queue over every server: parallel steps and many channels share the GPUs fairly, across replicas.
  const model = createServerPoolModel({
    servers,
    modelFor: (server) => switches.get(server)!,
    slots,
    capacity,
    health,
    logger: options.logger,
    ...(options.measuredSpeed ? { measuredSpeed: options.measuredSpeed } : {}),
  });
  const pinned = new Map<string, QueuedModel>();
  const modelOn = (server: string): QueuedModel | undefined => {
    if (!switches.has(server)) return undefined;
    let one = pinned.get(server);
    if (!one) {
      one = createServerPoolModel({ servers: [server], modelFor: (name) => switches.get(name)!, slots, capacity, logger: options.logger });
      pinned.set(server, one);
    }
    return one;
  };
  options.logger.info('model selected', {
    provider: info.providerId,
    baseURL: several ? servers.join(', ') : info.baseURL,
    model: model.modelId,
    contextWindow: info.contextWindow,
    ...(several ? { down: found.down, slotsPerServer: capacity } : {}),
  });
  return {
    model,
    info,
    servers,
    capacity,
    ...(health ? { health } : {}),
    apiKey: keys.get(servers[0]!),
    apiKeyFor: (server) => keys.get(server),
    inUse: (server) => slots.inUse(server),
    select(next) {
      for (const [server, modelSwitch] of switches) modelSwitch.switchTo(endpoint(server, next));
    },
    modelOn,
  };
}

/** A plain endpoint model for one model id on one server. */
export function createEndpointModel(
  config: AppConfig,
  info: DiscoveryResult,
  modelId: string,
  apiKey: string | undefined,
  options: { fetch?: typeof fetch; logger: Logger; maxRetries?: number },
): LanguageModel {
  return createOpenAICompatibleModel({
    providerId: info.providerId,
    baseURL: info.baseURL,
    modelId,
    apiKey,
    contextWindow: info.contextWindow,
    fetch: options.fetch,
    firstTokenTimeoutMs: config.llm.firstTokenTimeoutMs,
    generationTimeoutMs: config.llm.generationTimeoutMs,
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    logger: options.logger,
  });
}

/** Does `server` answer `GET /models` right now? Never throws. */
export async function answersModels(server: string, apiKey: string | undefined, fetchImplementation: typeof fetch = fetch): Promise<boolean> {
  try {
    const response = await fetchImplementation(`${server.replace(/\/+$/, '')}/models`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(HEALTH_PROBE_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * The slot pool with loopback servers named per host: replicas on one host share its GPU, replicas
 * on different hosts each have their own `127.0.0.1`.
 */
function hostQualified(slots: SlotPool): SlotPool {
  const host = hostname();
  const name = (server: string) => (/^https?:\/\/(localhost|127\.[\d.]+|\[::1\])(:|\/|$)/i.test(server) ? `${host}/${server}` : server);
  return {
    async acquire(request) {
      const names = new Map(request.servers.map((server) => [name(server), server]));
      const grant = await slots.acquire({ ...request, servers: [...names.keys()] });
      return { server: names.get(grant.server) ?? grant.server, release: () => grant.release() };
    },
    position: (id) => slots.position(id),
    queue: () => slots.queue(),
    waiting: () => slots.waiting(),
    inUse: (server) => slots.inUse(name(server)),
  };
}

function catalogueApiKeys(config: AppConfig, catalogue: readonly ProviderEntry[]): Record<string, string | undefined> {
  return Object.fromEntries(catalogue.filter((entry) => entry.apiKeyEnv).map((entry) => [entry.id, config.environment[entry.apiKeyEnv!]]));
}

function endpointApiKey(config: AppConfig, catalogue: readonly ProviderEntry[], baseURL: string): string | undefined {
  if (config.llm.apiKey) return config.llm.apiKey;
  const entry = findCatalogueEntry(catalogue, baseURL);
  return entry ? apiKeyFor(entry, catalogueApiKeys(config, catalogue)) : undefined;
}
