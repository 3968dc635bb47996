/**
 * SSE bodies in the shapes real servers send (field sets and ordering copied from the documented
 * streams of Ollama's OpenAI endpoint, llama.cpp's llama-server and vLLM).
 */
import { PassThrough } from 'node:stream';
import type { ModelStreamPart } from '../../../src/core/model/language-model.js';

export type Delta = Record<string, unknown>;

/** Serialises chunks as an SSE body ending with `data: [DONE]`. */
export function sseBody(chunks: object[], options: { done?: boolean } = {}): string {
  const events = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
  if (options.done !== false) events.push('data: [DONE]\n\n');
  return events.join('');
}

export const SSE_HEADERS = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };

/** Ollama (`/v1/chat/completions`, stream): `system_fingerprint: fp_ollama`, usage in a last empty-choices chunk. */
export function ollamaChunk(delta: Delta, finishReason: string | null = null): object {
  return {
    id: 'chatcmpl-593',
    object: 'chat.completion.chunk',
    created: 1735000000,
    model: 'qwen2.5-coder:7b',
    system_fingerprint: 'fp_ollama',
    choices: [{ index: 0, delta: { role: 'assistant', ...delta }, finish_reason: finishReason }],
  };
}

/** llama-server: `content: null` in the opening delta, finish chunk carrying `timings`. */
export function llamaCppChunk(delta: Delta, finishReason: string | null = null): object {
  return {
    choices: [{ finish_reason: finishReason, index: 0, delta }],
    created: 1735000000,
    id: 'chatcmpl-Xq3mNcm1mtjzmHkpRaNpAGOGsKRZTm5J',
    model: 'gpt-3.5-turbo',
    system_fingerprint: 'b5140-bc091a4d',
    object: 'chat.completion.chunk',
  };
}

/** vLLM: `logprobs: null` on each choice. */
export function vllmChunk(delta: Delta, finishReason: string | null = null): object {
  return {
    id: 'chatcmpl-b7a1c0e2f4d84f0c9d3a4b5c6d7e8f90',
    object: 'chat.completion.chunk',
    created: 1735000000,
    model: 'Qwen/Qwen2.5-Coder-7B-Instruct',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The usage chunk every server sends with `stream_options.include_usage`: empty `choices`. */
export function usageChunk(promptTokens: number, completionTokens: number): object {
  return {
    id: 'chatcmpl-usage',
    object: 'chat.completion.chunk',
    created: 1735000000,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** Collects every part of a stream. */
export async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

export const textOf = (parts: ModelStreamPart[]): string => parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
export const reasoningOf = (parts: ModelStreamPart[]): string => parts.map((part) => (part.type === 'reasoning-delta' ? part.text : '')).join('');
export const toolCallsOf = (parts: ModelStreamPart[]) =>
  parts.filter((part): part is Extract<ModelStreamPart, { type: 'tool-call' }> => part.type === 'tool-call');

/** A response body the test writes to chunk by chunk (for stalls and aborts mid-stream). */
export function controlledBody(): { stream: PassThrough; send(chunk: object): void } {
  const stream = new PassThrough();
  return { stream, send: (chunk) => stream.write(`data: ${JSON.stringify(chunk)}\n\n`) };
}
