/**
 * Condensing long step outputs: later steps (and memory, as a `run` fact) get a short summary
 * instead of pages of output that would crowd a small model's context.
 */
import { AbortedError, ModelError, TsukaError } from '../../errors.js';
import type { ChatMessage, LanguageModel, ModelUsage, ReasoningEffort } from '../../model/language-model.js';

/** Outputs longer than this are condensed. */
export const CONDENSE_THRESHOLD_CHARS = 2_000;

/** The most of a step's output sent to the model; the middle of anything longer is left out. */
export const CONDENSE_MAX_INPUT_CHARS = 24_000;

/** A summary needs no more than this. */
const CONDENSE_MAX_OUTPUT_TOKENS = 400;

/** Whether `text` is long enough to be condensed. */
export function needsCondensing(text: string, limitChars: number = CONDENSE_THRESHOLD_CHARS): boolean {
  return text.length > limitChars;
}

/** The messages asking for a summary of one step's output. */
export function condensePrompt(stepOutput: string): { system: string; user: string } {
  const system = [
    'You condense the output of one step of a multi-agent run for the agents that come after it.',
    'Write at most 8 short lines: what was done, the files created or changed (with paths), decisions taken, commands run and their result, and anything left open or failing.',
    'Keep names, paths, numbers and error messages exact. Do not add advice or anything that is not in the output.',
  ].join('\n');
  return { system, user: `Step output:\n\n${clip(stepOutput)}` };
}

/**
 * One model call, no tools: the summary of `text`. Throws `AbortedError` when `signal` fires and
 * `ModelError` when the model fails or answers nothing. `onUsage` sees the call's token counts, so the
 * run's stats can include them.
 */
export async function condenseStepOutput(input: {
  model: LanguageModel;
  text: string;
  signal?: AbortSignal;
  onUsage?: (usage: ModelUsage) => void;
  effort?: ReasoningEffort;
}): Promise<string> {
  const prompt = condensePrompt(input.text);
  const messages: ChatMessage[] = [
    { role: 'system', content: prompt.system },
    { role: 'user', content: prompt.user },
  ];
  let summary = '';
  try {
    for await (const part of input.model.stream({
      messages,
      maxOutputTokens: CONDENSE_MAX_OUTPUT_TOKENS,
      effort: input.effort ?? 'none',
      signal: input.signal,
    })) {
      if (part.type === 'text-delta') summary += part.text;
      else if (part.type === 'usage') input.onUsage?.(part.usage);
    }
  } catch (error) {
    if (error instanceof TsukaError) throw error;
    if (input.signal?.aborted) throw new AbortedError(undefined, { cause: error });
    throw new ModelError('The model could not condense the step output.', { cause: error });
  }
  if (input.signal?.aborted) throw new AbortedError();
  const trimmed = summary.trim();
  if (trimmed === '') throw new ModelError('The model returned an empty summary of the step output.');
  return trimmed;
}

function clip(text: string): string {
  if (text.length <= CONDENSE_MAX_INPUT_CHARS) return text;
  const half = Math.floor(CONDENSE_MAX_INPUT_CHARS / 2);
  const omitted = text.length - 2 * half;
  return `${text.slice(0, half)}\n\n[… ${omitted} characters left out …]\n\n${text.slice(-half)}`;
}
