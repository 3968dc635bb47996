/**
 * Readers for what model servers say about their models: which exist, which is loaded in memory,
 * and how large the context window is. Each server family says it differently; every reader takes
 * `unknown` and returns only what it could confirm.
 */

/** A model as a server lists it. */
export interface ListedModel {
  id: string;
  /** True/false when the server says; undefined when it does not tell. */
  loaded?: boolean;
  /** The window the server runs the model with (runtime), when it says. */
  runtimeContext?: number;
  /** The largest window the model supports (training), when the server says. */
  maxContext?: number;
  ownedBy?: string;
  /** Embedding models cannot chat; they are never chosen. */
  embedding: boolean;
}

/** `GET /v1/models` (every OpenAI-compatible server) or LM Studio's `GET /api/v0/models`. */
export function parseModelList(value: unknown): ListedModel[] {
  const root = asRecord(value);
  const entries = Array.isArray(root.data) ? root.data : Array.isArray(root.models) ? root.models : [];
  const models: ListedModel[] = [];
  for (const raw of entries) {
    const entry = asRecord(raw);
    const id = text(entry.id) ?? text(entry.name) ?? text(entry.model);
    if (!id) continue;
    const meta = asRecord(entry.meta);
    const status = entry.status;
    const state = text(entry.state) ?? text(status) ?? text(asRecord(status).value);
    const loaded = entry.loaded === true || state === 'loaded' ? true : entry.loaded === false || state !== undefined ? false : undefined;
    models.push({
      id,
      loaded,
      // vLLM's max_model_len and LM Studio's loaded_context_length are what the server actually runs with.
      runtimeContext: positive(entry.max_model_len) ?? positive(entry.loaded_context_length),
      maxContext: positive(entry.context_length) ?? positive(entry.max_context_length) ?? positive(meta.n_ctx_train),
      ownedBy: text(entry.owned_by),
      embedding: text(entry.type) === 'embeddings' || /(^|[^a-z])embed/i.test(id),
    });
  }
  return models;
}

/** A model Ollama holds in memory (`GET /api/ps`). */
export interface RunningModel {
  name: string;
  runtimeContext?: number;
}

/** Ollama's `GET /api/ps`: the models loaded in memory right now. */
export function parseOllamaRunning(value: unknown): RunningModel[] {
  const models = asRecord(value).models;
  if (!Array.isArray(models)) return [];
  const running: RunningModel[] = [];
  for (const raw of models) {
    const entry = asRecord(raw);
    const name = text(entry.model) ?? text(entry.name);
    if (name) running.push({ name, runtimeContext: positive(entry.context_length) });
  }
  return running;
}

/** Ollama's `POST /api/show`: `num_ctx` in `parameters` is what it runs with; the architecture's maximum otherwise. */
export function parseOllamaShow(value: unknown): { runtimeContext?: number; maxContext?: number } {
  const root = asRecord(value);
  const parameters = text(root.parameters) ?? '';
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(parameters)?.[1];
  const info = asRecord(root.model_info);
  const architecture = text(info['general.architecture']);
  let maxContext = architecture ? positive(info[`${architecture}.context_length`]) : undefined;
  if (maxContext === undefined) {
    const key = Object.keys(info).find((name) => name.endsWith('.context_length'));
    if (key) maxContext = positive(info[key]);
  }
  return { runtimeContext: numCtx ? positive(Number(numCtx)) : undefined, maxContext };
}

/** llama-server's `GET /props`: the slot context (`n_ctx`) it was started with. */
export function parseLlamaProps(value: unknown): { runtimeContext?: number; modelPath?: string } {
  const root = asRecord(value);
  const settings = asRecord(root.default_generation_settings);
  return {
    runtimeContext: positive(settings.n_ctx) ?? positive(root.n_ctx),
    modelPath: text(root.model_path) ?? text(settings.model),
  };
}

/**
 * Whether the model sees images, from llama-server's `GET /props` (`modalities.vision`) or Ollama's
 * `POST /api/show` (`capabilities` holding `vision`); undefined when the answer does not say.
 */
export function parseVision(value: unknown): boolean | undefined {
  const root = asRecord(value);
  const modalities = asRecord(root.modalities);
  if (typeof modalities.vision === 'boolean') return modalities.vision;
  if (Array.isArray(root.capabilities)) return root.capabilities.includes('vision');
  return undefined;
}

/** Compares model names the way Ollama does: a name without a tag means `:latest`. */
export function sameModelName(a: string, b: string): boolean {
  const normalise = (name: string): string => (name.includes(':') ? name : `${name}:latest`).toLowerCase();
  return normalise(a) === normalise(b);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
