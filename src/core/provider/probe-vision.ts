/**
 * Does the model see images? Asked of the server when a message brings one (issue 23): llama-server
 * answers in `GET /props` (`modalities.vision`, the loaded model), Ollama in `POST /api/show`
 * (`capabilities`). Both are asked (404s are harmless); a server that says neither is taken as
 * not seeing images. Never throws.
 */
import { probeRequest } from './probe-request.js';
import { parseVision } from './server-metadata.js';

const VISION_PROBE_TIMEOUT_MS = 2_500;

export async function probeVision(options: { baseURL: string; modelId: string; apiKey?: string; fetch?: typeof fetch }): Promise<boolean> {
  const root = options.baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
  const signal = AbortSignal.timeout(VISION_PROBE_TIMEOUT_MS);
  const request = (url: string, body?: unknown) =>
    probeRequest(url, { fetch: options.fetch ?? globalThis.fetch, signal, timeoutMs: VISION_PROBE_TIMEOUT_MS, apiKey: options.apiKey, body });
  const [props, show] = await Promise.all([request(`${root}/props`), request(`${root}/api/show`, { model: options.modelId })]);
  const answers = [props, show].map((answer) => (answer.ok ? parseVision(answer.value) : undefined));
  return answers.includes(true);
}
