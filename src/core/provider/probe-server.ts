/**
 * Probes one OpenAI-compatible server: is it reachable, which models does it list, which one is
 * loaded in memory, and how large is that model's context window. Every step is recorded with a
 * message, for discovery and for `tsuka doctor`.
 */
import type { ProviderKind } from './catalogue.js';
import { probeRequest, type ProbeResponse } from './probe-request.js';
import { parseLlamaProps, parseModelList, parseOllamaRunning, parseOllamaShow, sameModelName, type ListedModel, type RunningModel } from './server-metadata.js';

export const DEFAULT_PROBE_TIMEOUT_MS = 2_500;

/** One step of a probe and how it went. */
export interface ProbeStep {
  step: 'reachable' | 'models' | 'loaded' | 'context';
  ok: boolean;
  message: string;
}

/** A listed model with what the probe learnt about it. */
export interface ProbedModel {
  id: string;
  loaded: boolean;
}

/** Everything one probe found out. */
export interface ServerProbe {
  baseURL: string;
  /** The server family: as given, else recognised from its answers. */
  kind: ProviderKind | 'unknown';
  reachable: boolean;
  models: ProbedModel[];
  /** The model to use: the explicit one, else the loaded one, else the default, else the first. */
  modelId?: string;
  loaded: boolean;
  contextWindow?: number;
  steps: ProbeStep[];
}

export interface ProbeServerOptions {
  baseURL: string;
  kind?: ProviderKind;
  apiKey?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** Used whatever the server lists (the user asked for it). */
  modelId?: string;
  /** Used when the server lists it. */
  preferredModelId?: string;
  /** The catalogue's default, chosen when nothing is loaded and the server lists it. */
  defaultModel?: string;
}

const OWNER_KINDS: Record<string, ProviderKind> = { llamacpp: 'llama-cpp', vllm: 'vllm', organization_owner: 'lm-studio' };

/** Probes one server within `timeoutMs` (default 2.5 s) and never throws. */
export async function probeServer(options: ProbeServerOptions): Promise<ServerProbe> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const baseURL = options.baseURL.replace(/\/+$/, '');
  const root = baseURL.replace(/\/v1$/, '');
  const signal = AbortSignal.timeout(timeoutMs);
  const request = (url: string, body?: unknown): Promise<ProbeResponse> =>
    probeRequest(url, { fetch: options.fetch ?? globalThis.fetch, signal, timeoutMs, apiKey: options.apiKey, body });
  const steps: ProbeStep[] = [];
  const probe: ServerProbe = { baseURL, kind: options.kind ?? 'unknown', reachable: false, models: [], loaded: false, steps };

  const listing = await request(`${baseURL}/models`);
  if (!listing.ok && !listing.reachable) {
    steps.push({ step: 'reachable', ok: false, message: `${baseURL} is ${listing.message}.` });
    return probe;
  }
  probe.reachable = true;
  steps.push({ step: 'reachable', ok: true, message: `${baseURL} answers.` });
  const listed = listing.ok ? parseModelList(listing.value).filter((model) => !model.embedding) : [];
  if (!listing.ok) steps.push({ step: 'models', ok: false, message: `GET /models ${listing.message}.` });
  else if (listed.length === 0) steps.push({ step: 'models', ok: false, message: 'The server lists no chat models.' });
  else steps.push({ step: 'models', ok: true, message: `Models: ${listed.map((model) => model.id).join(', ')}.` });
  const owner = listed[0]?.ownedBy ?? '';
  if (probe.kind === 'unknown' && Object.hasOwn(OWNER_KINDS, owner)) probe.kind = OWNER_KINDS[owner]!;

  const extras = await readExtras(probe.kind, root, request);
  if (probe.kind === 'unknown') probe.kind = extras.recognisedKind ?? 'unknown';
  const models = mergeLoadedState(listed, extras, probe.kind);
  probe.models = models.map((model) => ({ id: model.id, loaded: model.loaded === true }));

  const choice = chooseModel(models, options);
  if (!choice) return probe;
  const chosen = choice.model;
  probe.modelId = chosen.id;
  probe.loaded = chosen.loaded === true;
  steps.push({ step: 'loaded', ok: probe.loaded, message: describeChoice(chosen, choice.unlisted) });

  const show = probe.kind === 'ollama' ? await request(`${root}/api/show`, { model: chosen.id }) : undefined;
  const shown = show?.ok ? parseOllamaShow(show.value) : {};
  probe.contextWindow = chosen.runtimeContext ?? extras.propsContext ?? shown.runtimeContext ?? shown.maxContext ?? chosen.maxContext;
  steps.push(
    probe.contextWindow
      ? { step: 'context', ok: true, message: `Context window: ${probe.contextWindow} tokens.` }
      : { step: 'context', ok: false, message: `The server did not say the context window${show && !show.ok ? ` (POST /api/show ${show.message})` : ''}.` },
  );
  return probe;
}

interface Extras {
  recognisedKind?: ProviderKind;
  running?: RunningModel[];
  lmStudio?: ListedModel[];
  propsContext?: number;
}

/** The family-specific endpoints; an unknown server gets all of them (cheap, and 404s are harmless). */
async function readExtras(kind: ProviderKind | 'unknown', root: string, request: (url: string) => Promise<ProbeResponse>): Promise<Extras> {
  const wants = (family: ProviderKind): boolean => kind === family || kind === 'unknown';
  const [ps, lmStudio, props] = await Promise.all([
    wants('ollama') ? request(`${root}/api/ps`) : undefined,
    wants('lm-studio') ? request(`${root}/api/v0/models`) : undefined,
    wants('llama-cpp') ? request(`${root}/props`) : undefined,
  ]);
  const extras: Extras = {};
  if (ps?.ok && Array.isArray((ps.value as { models?: unknown }).models)) {
    extras.running = parseOllamaRunning(ps.value);
    extras.recognisedKind = 'ollama';
  }
  if (lmStudio?.ok) {
    extras.lmStudio = parseModelList(lmStudio.value);
    if (extras.lmStudio.length > 0) extras.recognisedKind ??= 'lm-studio';
  }
  if (props?.ok) {
    const parsed = parseLlamaProps(props.value);
    extras.propsContext = parsed.runtimeContext;
    if (parsed.runtimeContext !== undefined) extras.recognisedKind ??= 'llama-cpp';
  }
  return extras;
}

/** Adds what `/api/ps` and `/api/v0/models` say to the `/v1/models` list. */
function mergeLoadedState(listed: ListedModel[], extras: Extras, kind: ProviderKind | 'unknown'): ListedModel[] {
  // A single-model llama-server loads its model at start, whether or not it says so.
  const soleLlamaModel = kind === 'llama-cpp' && extras.propsContext !== undefined && listed.length === 1;
  return listed.map((model) => {
    const running = extras.running?.find((entry) => sameModelName(entry.name, model.id));
    const lmStudio = extras.lmStudio?.find((entry) => entry.id === model.id);
    let loaded = model.loaded;
    if (extras.running) loaded = running !== undefined;
    if (lmStudio?.loaded !== undefined) loaded = lmStudio.loaded;
    if (soleLlamaModel && loaded === undefined) loaded = true;
    return {
      ...model,
      loaded,
      runtimeContext: running?.runtimeContext ?? lmStudio?.runtimeContext ?? model.runtimeContext,
      maxContext: model.maxContext ?? lmStudio?.maxContext,
    };
  });
}

/** The explicit model, else the preferred one if listed, else the loaded one, the default, the first. */
function chooseModel(models: ListedModel[], options: ProbeServerOptions): { model: ListedModel; unlisted: boolean } | undefined {
  const find = (id: string | undefined): ListedModel | undefined => (id ? models.find((model) => sameModelName(model.id, id)) : undefined);
  if (options.modelId) {
    const listed = find(options.modelId);
    return listed ? { model: listed, unlisted: false } : { model: { id: options.modelId, embedding: false }, unlisted: true };
  }
  const model = find(options.preferredModelId) ?? models.find((entry) => entry.loaded === true) ?? find(options.defaultModel) ?? models[0];
  return model ? { model, unlisted: false } : undefined;
}

function describeChoice(chosen: ListedModel, unlisted: boolean): string {
  if (unlisted) return `Using the configured model ${chosen.id} (the server does not list it).`;
  const state = chosen.loaded === true ? 'loaded in memory' : chosen.loaded === false ? 'not loaded yet' : 'load state unknown';
  return `Using ${chosen.id} (${state}).`;
}
