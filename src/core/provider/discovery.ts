/**
 * Discovery picks the model server and model. A configured endpoint is binding: it is the only
 * server probed, and when it does not answer the result is null (never a silent substitute).
 * Without one, every LOCAL server of the catalogue is probed in parallel, preferring a model that
 * is already loaded in memory so nothing has to be reloaded. A CLOUD provider is never discovered:
 * it is used only when the configured endpoint points at it.
 */
import { silentLogger, type Logger } from '../logger.js';
import type { ProviderEntry } from './catalogue.js';
import { DEFAULT_PROBE_TIMEOUT_MS, probeServer, type ServerProbe } from './probe-server.js';

/** The server and model discovery settled on. */
export interface DiscoveryResult {
  providerId: string;
  displayName: string;
  baseURL: string;
  modelId: string;
  contextWindow?: number;
  /** The model was already loaded in the server's memory. */
  loaded: boolean;
  class: 'LOCAL' | 'CLOUD';
}

export interface DiscoverModelOptions {
  catalogue: readonly ProviderEntry[];
  /** `TSUKA_LLM_BASE_URL` / `TSUKA_LLM_MODEL` / `TSUKA_LLM_API_KEY`; a model id alone is a preference. */
  configured?: { baseURL?: string; modelId?: string; apiKey?: string };
  fetch?: typeof fetch;
  probeTimeoutMs?: number;
  /** API keys by provider id (or by the entry's `apiKeyEnv` name); a CLOUD entry is probed only with one. */
  apiKeys: Record<string, string | undefined>;
  logger?: Logger;
}

/** Probes the servers and returns the best one, or null when none answered with a usable model. */
export async function discoverModel(options: DiscoverModelOptions): Promise<DiscoveryResult | null> {
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const configured = options.configured;

  if (configured?.baseURL) {
    const entry = findCatalogueEntry(options.catalogue, configured.baseURL);
    const probe = await probeServer({
      baseURL: configured.baseURL,
      kind: entry?.kind,
      apiKey: configured.apiKey ?? (entry ? apiKeyFor(entry, options.apiKeys) : undefined),
      fetch: options.fetch,
      timeoutMs,
      modelId: configured.modelId,
      defaultModel: entry?.defaultModel,
    });
    if (probe.modelId) return toResult(probe, entry, configured.baseURL);
    logger.info('the configured model server did not answer with a model', {
      baseURL: configured.baseURL,
      problems: probe.steps.filter((step) => !step.ok).map((step) => step.message),
    });
    return null;
  }

  const candidates = options.catalogue.filter((entry) => entry.class === 'LOCAL');
  const probes = await Promise.all(
    candidates.map(async (entry, order) => ({
      entry,
      order,
      probe: await probeServer({
        baseURL: entry.baseURL,
        kind: entry.kind,
        apiKey: apiKeyFor(entry, options.apiKeys),
        fetch: options.fetch,
        timeoutMs,
        preferredModelId: configured?.modelId,
        defaultModel: entry.defaultModel,
      }),
    })),
  );
  const usable = probes.filter((candidate) => candidate.probe.modelId !== undefined);
  for (const { entry, probe } of probes) {
    logger.debug('probed model server', { provider: entry.id, reachable: probe.reachable, model: probe.modelId, loaded: probe.loaded });
  }
  usable.sort((a, b) => rank(a, configured?.modelId) - rank(b, configured?.modelId) || a.order - b.order);
  const best = usable[0];
  return best ? toResult(best.probe, best.entry, best.entry.baseURL) : null;
}

/** Lower is better: the requested model, then a loaded one. */
function rank(candidate: { entry: ProviderEntry; probe: ServerProbe }, wantedModelId: string | undefined): number {
  let score = 0;
  if (!(wantedModelId && candidate.probe.modelId === wantedModelId)) score += 10;
  if (!candidate.probe.loaded) score += 1;
  return score;
}

function toResult(probe: ServerProbe, entry: ProviderEntry | undefined, baseURL: string): DiscoveryResult {
  return {
    providerId: entry?.id ?? 'custom',
    displayName: entry?.displayName ?? `Custom endpoint (${new URL(baseURL).host})`,
    baseURL: probe.baseURL,
    modelId: probe.modelId!,
    contextWindow: probe.contextWindow,
    loaded: probe.loaded,
    class: entry?.class ?? (isLocalHost(new URL(baseURL).hostname) ? 'LOCAL' : 'CLOUD'),
  };
}

/** The key for a catalogue entry: by its id or by its `apiKeyEnv` variable's name. */
export function apiKeyFor(entry: ProviderEntry, apiKeys: Record<string, string | undefined>): string | undefined {
  return apiKeys[entry.id] || (entry.apiKeyEnv ? apiKeys[entry.apiKeyEnv] : undefined) || undefined;
}

/** The catalogue entry a configured URL points at (`localhost` and `127.0.0.1` are the same). */
export function findCatalogueEntry(catalogue: readonly ProviderEntry[], baseURL: string): ProviderEntry | undefined {
  return catalogue.find((entry) => sameEndpoint(entry.baseURL, baseURL));
}

function sameEndpoint(a: string, b: string): boolean {
  const key = (url: string): string | undefined => {
    try {
      const parsed = new URL(url);
      const host = isLoopback(parsed.hostname) ? 'loopback' : parsed.hostname;
      return `${parsed.protocol}//${host}:${parsed.port}${parsed.pathname.replace(/\/+$/, '')}`;
    } catch (error) {
      // A malformed URL matches nothing; the probe itself reports it.
      void error;
      return undefined;
    }
  };
  const left = key(a);
  return left !== undefined && left === key(b);
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127\./.test(hostname);
}

function isLocalHost(hostname: string): boolean {
  return isLoopback(hostname) || /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(hostname) || hostname.endsWith('.local');
}
