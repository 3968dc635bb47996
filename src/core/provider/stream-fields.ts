/**
 * Readers for the fields servers add to stream chunks beyond OpenAI's: every reasoning field
 * (`reasoning_content` of llama.cpp/vLLM/DeepSeek, `reasoning` of Ollama/OpenRouter, OpenRouter's
 * `reasoning_details`), llama.cpp's `timings`, and error chunks inside a stream.
 */
import { ServerErrorBody } from './server-errors.js';

/**
 * The reasoning text of one delta. OpenRouter sends the same text twice, as `reasoning` and inside
 * `reasoning_details`; the details count only when no plain field carried it.
 */
export function readReasoning(delta: Record<string, unknown>): string {
  for (const key of ['reasoning_content', 'reasoning']) {
    const value = delta[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  const details = delta.reasoning_details;
  if (!Array.isArray(details)) return '';
  let text = '';
  for (const raw of details) {
    if (typeof raw !== 'object' || raw === null) continue;
    const detail = raw as Record<string, unknown>;
    // `reasoning.encrypted` carries no readable text.
    if (detail.type === 'reasoning.text' && typeof detail.text === 'string') text += detail.text;
    else if (detail.type === 'reasoning.summary' && typeof detail.summary === 'string') text += detail.summary;
  }
  return text;
}

/** llama.cpp's `timings` (`predicted_per_second`, `prompt_per_second`): the server's own speed measure. */
export function readTimings(value: unknown): { generationTokensPerSecond?: number; promptTokensPerSecond?: number } {
  if (typeof value !== 'object' || value === null) return {};
  const timings = value as Record<string, unknown>;
  const positive = (entry: unknown): number | undefined => (typeof entry === 'number' && Number.isFinite(entry) && entry > 0 ? entry : undefined);
  const generation = positive(timings.predicted_per_second);
  const prompt = positive(timings.prompt_per_second);
  return { ...(generation === undefined ? {} : { generationTokensPerSecond: generation }), ...(prompt === undefined ? {} : { promptTokensPerSecond: prompt }) };
}

/**
 * An error a server put inside the stream that the client did not already throw: vLLM's flat
 * `{"object": "error", "message": …}`, or an `error` field of the wrong shape.
 */
export function streamErrorOf(record: Record<string, unknown>): ServerErrorBody | undefined {
  if (record.object === 'error' && typeof record.message === 'string') return new ServerErrorBody(record);
  if (record.error !== undefined && record.error !== null && record.error !== false && record.error !== '') return new ServerErrorBody(record.error);
  return undefined;
}
