/**
 * Runs the benchmark against a model: two speed probes (a long prompt for prompt processing, a long
 * answer for generation) and the quality suite, one model step per case. Token counts come from the
 * server's usage when it reports them, else from a 4-characters-per-token estimate.
 */
import { AbortedError } from '../errors.js';
import type { LanguageModel, ModelRequest } from '../model/language-model.js';
import { BENCHMARK_CASES, TOOL_CATEGORIES, type BenchmarkAnswer, type BenchmarkCase } from './benchmark-cases.js';
import { deriveTier } from './derive-tier.js';
import type { BenchmarkCaseResult, ModelProfile } from './model-profile.js';

export interface BenchmarkProgress {
  done: number;
  total: number;
  /** `speed: prompt processing`, or a case id. */
  step: string;
  passed?: boolean;
}

export interface RunBenchmarkOptions {
  model: LanguageModel;
  onProgress?(progress: BenchmarkProgress): void;
  signal?: AbortSignal;
  cases?: readonly BenchmarkCase[];
  now?: () => number;
}

const CHARS_PER_TOKEN_ESTIMATE = 4;
/** Room for a reasoning model to think before it answers. */
const CASE_MAX_OUTPUT_TOKENS = 1024;
const GENERATION_PROBE_MAX_TOKENS = 256;

interface StepMeasure {
  answer: BenchmarkAnswer;
  /** The server's own speed measure (llama.cpp `timings`), when it sent one. */
  serverSpeed: { generation?: number; prompt?: number };
  ttftMs?: number;
  /** From the first to the last streamed part. */
  streamMs: number;
  promptTokens: number;
  completionTokens: number;
}

/** A long, plain prompt (about 2,000 tokens) for the prompt-processing probe. */
function longPrompt(): string {
  const line = 'export function add(a: number, b: number): number { return a + b; } // a small helper used across the code base\n';
  return `Here is a file:\n\n${line.repeat(80)}\nHow many functions does it define? Answer with one number.`;
}

export async function runBenchmark(options: RunBenchmarkOptions): Promise<ModelProfile> {
  const { model } = options;
  const now = options.now ?? (() => performance.now());
  const cases = options.cases ?? BENCHMARK_CASES;
  const total = cases.length + 2;
  // How each tool call of the run came back: 'native', or the text form the model wrote it in.
  const forms: NonNullable<ModelProfile['toolCallForm']>[] = [];
  let done = 0;
  const progress = (step: string, passed?: boolean): void => options.onProgress?.({ done: ++done, total, step, ...(passed === undefined ? {} : { passed }) });

  async function step(request: ModelRequest): Promise<StepMeasure> {
    if (options.signal?.aborted) throw new AbortedError();
    const started = now();
    let first: number | undefined;
    let last = started;
    let promptTokens: number | undefined;
    let completionTokens: number | undefined;
    const answer: BenchmarkAnswer = { text: '', toolCalls: [] };
    let reasoningChars = 0;
    const serverSpeed: StepMeasure['serverSpeed'] = {};
    for await (const part of model.stream({ ...request, temperature: 0, ...(options.signal ? { signal: options.signal } : {}) })) {
      if (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-call') {
        first ??= now();
        last = now();
      }
      if (part.type === 'text-delta') answer.text += part.text;
      if (part.type === 'reasoning-delta') reasoningChars += part.text.length;
      if (part.type === 'tool-call') {
        answer.toolCalls.push({ name: part.toolCall.name, input: part.input });
        forms.push(part.textForm ?? 'native');
      }
      if (part.type === 'usage') {
        ({ promptTokens, completionTokens } = part.usage);
        serverSpeed.generation = part.usage.generationTokensPerSecond ?? serverSpeed.generation;
        serverSpeed.prompt = part.usage.promptTokensPerSecond ?? serverSpeed.prompt;
      }
    }
    const promptChars = request.messages.reduce((sum, message) => sum + message.content.length, 0) + JSON.stringify(request.tools ?? []).length;
    const outputChars =
      answer.text.length + reasoningChars + answer.toolCalls.reduce((sum, call) => sum + call.name.length + JSON.stringify(call.input ?? {}).length, 0);
    return {
      answer,
      serverSpeed,
      ...(first === undefined ? {} : { ttftMs: first - started }),
      streamMs: first === undefined ? 0 : last - first,
      promptTokens: promptTokens || Math.ceil(promptChars / CHARS_PER_TOKEN_ESTIMATE),
      completionTokens: completionTokens || Math.ceil(outputChars / CHARS_PER_TOKEN_ESTIMATE),
    };
  }

  const prompt = await step({ messages: [{ role: 'user', content: longPrompt() }], maxOutputTokens: 8 });
  progress('speed: prompt processing');
  const generation = await step({
    messages: [{ role: 'user', content: 'Count from 1 to 120 in words, separated by commas. Do not stop early.' }],
    maxOutputTokens: GENERATION_PROBE_MAX_TOKENS,
  });
  progress('speed: generation');

  const results: BenchmarkCaseResult[] = [];
  for (const testCase of cases) {
    let result: BenchmarkCaseResult;
    try {
      const measure = await step({
        messages: testCase.messages,
        ...(testCase.tools ? { tools: testCase.tools } : {}),
        maxOutputTokens: CASE_MAX_OUTPUT_TOKENS,
      });
      const reason = testCase.check(measure.answer);
      result = {
        id: testCase.id,
        category: testCase.category,
        passed: reason === undefined,
        ...(reason ? { reason } : {}),
        ...(measure.ttftMs === undefined ? {} : { ttftMs: measure.ttftMs }),
      };
    } catch (error) {
      if (error instanceof AbortedError || options.signal?.aborted) throw error;
      result = {
        id: testCase.id,
        category: testCase.category,
        passed: false,
        reason: `the model failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    results.push(result);
    progress(testCase.id, result.passed);
  }

  const passed = results.filter((result) => result.passed).length;
  const toolResults = results.filter((result) => TOOL_CATEGORIES.has(result.category));
  const quality = {
    passed,
    total: results.length,
    score: results.length === 0 ? 0 : passed / results.length,
    toolScore: toolResults.length === 0 ? 0 : toolResults.filter((result) => result.passed).length / toolResults.length,
  };
  const ttfts = results.flatMap((result) => (result.ttftMs === undefined ? [] : [result.ttftMs])).sort((a, b) => a - b);
  return {
    modelId: model.modelId,
    providerId: model.providerId,
    measuredAt: new Date().toISOString(),
    tier: deriveTier(quality),
    ...(ttfts.length > 0 ? { ttftMs: Math.round(ttfts[Math.floor(ttfts.length / 2)]!) } : {}),
    ...speedFigures(prompt, generation),
    ...(forms.length > 0 ? { toolCallForm: mostFrequentForm(forms) } : {}),
    quality,
    cases: results,
  };
}

/** Tokens per second: the server's own measure when it gave one (llama.cpp `timings`), else ours from the stream. */
function speedFigures(prompt: StepMeasure, generation: StepMeasure): Pick<ModelProfile, 'generationTokensPerSecond' | 'promptTokensPerSecond'> {
  const generationRate =
    generation.serverSpeed.generation ?? (generation.streamMs > 0 ? (generation.completionTokens / generation.streamMs) * 1000 : undefined);
  const promptRate = prompt.serverSpeed.prompt ?? (prompt.ttftMs ? (prompt.promptTokens / prompt.ttftMs) * 1000 : undefined);
  return {
    ...(generationRate === undefined ? {} : { generationTokensPerSecond: round(generationRate) }),
    ...(promptRate === undefined ? {} : { promptTokensPerSecond: round(promptRate) }),
  };
}

/** A text form wins over 'native' when the model used one at all: that is what the prompt must expect. */
function mostFrequentForm(forms: NonNullable<ModelProfile['toolCallForm']>[]): NonNullable<ModelProfile['toolCallForm']> {
  const counts = new Map<NonNullable<ModelProfile['toolCallForm']>, number>();
  for (const form of forms) if (form !== 'native') counts.set(form, (counts.get(form) ?? 0) + 1);
  if (counts.size === 0) return 'native';
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
