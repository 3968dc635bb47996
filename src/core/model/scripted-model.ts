import { AbortedError } from '../errors.js';
import type { LanguageModel, ModelRequest, ModelStreamPart, ToolCall } from './language-model.js';

/** One scripted answer: either parts to stream, or a function of the request. */
export type ScriptedStep = ModelStreamPart[] | ((request: ModelRequest) => ModelStreamPart[] | Promise<ModelStreamPart[]>);

/**
 * A fake model that answers one scripted step per call and records every request it was given.
 * Running out of steps is an error, so a test sees an unexpected extra call.
 */
export function createScriptedModel(
  steps: ScriptedStep[],
  options: { modelId?: string; contextWindow?: number } = {},
): LanguageModel & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  let index = 0;
  return {
    providerId: 'scripted',
    modelId: options.modelId ?? 'scripted-model-7b',
    contextWindow: options.contextWindow,
    requests,
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const step = steps[index++];
      if (step === undefined) throw new Error(`scripted model: no step ${index} scripted`);
      const parts = typeof step === 'function' ? await step(request) : step;
      for (const part of parts) {
        if (request.signal?.aborted) throw new AbortedError();
        yield part;
      }
    },
  };
}

/** Helpers to write scripts compactly. */
export const say = (text: string): ModelStreamPart[] => [
  { type: 'text-delta', text },
  { type: 'usage', usage: { promptTokens: 100, completionTokens: Math.ceil(text.length / 4) } },
  { type: 'finish', reason: 'stop' },
];

let scriptedCallCounter = 0;
export const callTool = (name: string, input: Record<string, unknown>, id?: string): ModelStreamPart[] => {
  const toolCall: ToolCall = { id: id ?? `call_${++scriptedCallCounter}`, name, arguments: JSON.stringify(input) };
  return [
    { type: 'tool-call', toolCall, input },
    { type: 'usage', usage: { promptTokens: 100, completionTokens: 20 } },
    { type: 'finish', reason: 'tool-calls' },
  ];
};
