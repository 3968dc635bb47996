/**
 * Finding and connecting the model server, shared by start-up and the later re-probes: discovery
 * with the configured endpoint as the only candidate when one is set, then the endpoint model
 * behind a switch (`/tsuka model`) and one queue per endpoint.
 */
import path from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import type { Logger } from '../core/logger.js';
import type { LanguageModel } from '../core/model/language-model.js';
import { loadProviderCatalogue } from '../core/provider/catalogue.js';
import { apiKeyFor, discoverModel, findCatalogueEntry, type DiscoveryResult } from '../core/provider/discovery.js';
import { createOpenAICompatibleModel } from '../core/provider/openai-compatible-model.js';
import { createQueuedModel, defaultMaxConcurrent } from '../core/model/queued-model.js';
import { createSwitchableModel, type SwitchableModel } from '../core/model/switchable-model.js';

/** A connected model server: the queued model the agents use, and the switch behind it. */
export interface ModelConnection {
  model: LanguageModel;
  info: DiscoveryResult;
  modelSwitch: SwitchableModel;
  /** The key sent to this endpoint (TSUKA_LLM_API_KEY, else the catalogue entry's own variable). */
  apiKey?: string;
}

/** Probes the configured endpoint (alone), else the local servers; null when none answered. */
export async function findModelServer(config: AppConfig, options: { fetch?: typeof fetch; logger: Logger }): Promise<DiscoveryResult | null> {
  const catalogue = await loadProviderCatalogue(path.join(config.rootDirectory, 'providers.json'));
  return discoverModel({
    catalogue,
    configured: config.llm.baseURL ? { baseURL: config.llm.baseURL, modelId: config.llm.modelId, apiKey: config.llm.apiKey } : undefined,
    fetch: options.fetch,
    apiKeys: catalogueApiKeys(config, catalogue),
    logger: options.logger,
  });
}

/** Builds the queued, switchable model for a server discovery found. */
export async function connectModelServer(
  config: AppConfig,
  info: DiscoveryResult,
  options: { fetch?: typeof fetch; logger: Logger },
): Promise<ModelConnection> {
  const apiKey = await endpointApiKey(config, info.baseURL);
  const endpointModel = createEndpointModel(config, info, config.llm.modelId ?? info.modelId, apiKey, options);
  // One queue per endpoint: parallel steps and many channels share a local GPU fairly.
  const modelSwitch = createSwitchableModel(endpointModel);
  const model = createQueuedModel(modelSwitch, { maxConcurrent: defaultMaxConcurrent(info.class, config.llm.concurrency) });
  options.logger.info('model selected', { provider: info.providerId, baseURL: info.baseURL, model: model.modelId, contextWindow: info.contextWindow });
  return { model, info, modelSwitch, apiKey };
}

/** A plain endpoint model for one model id on a connected server (start-up and `/tsuka model`). */
export function createEndpointModel(
  config: AppConfig,
  info: DiscoveryResult,
  modelId: string,
  apiKey: string | undefined,
  options: { fetch?: typeof fetch; logger: Logger },
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
    logger: options.logger,
  });
}

function catalogueApiKeys(config: AppConfig, catalogue: Awaited<ReturnType<typeof loadProviderCatalogue>>): Record<string, string | undefined> {
  return Object.fromEntries(catalogue.filter((entry) => entry.apiKeyEnv).map((entry) => [entry.id, config.environment[entry.apiKeyEnv!]]));
}

async function endpointApiKey(config: AppConfig, baseURL: string): Promise<string | undefined> {
  if (config.llm.apiKey) return config.llm.apiKey;
  const catalogue = await loadProviderCatalogue(path.join(config.rootDirectory, 'providers.json'));
  const entry = findCatalogueEntry(catalogue, baseURL);
  return entry ? apiKeyFor(entry, catalogueApiKeys(config, catalogue)) : undefined;
}
