/**
 * How fast this process sees the model generate, and how long a place in the generation queue
 * means (issue 25: "2nd in queue · ~40 s"). The estimate is the tokens that must be generated
 * before a waiting request gets a slot, divided by the speed: the measured speed of `tsuka
 * benchmark` when there is a profile, else a running average of what this process observed, else
 * no estimate at all.
 */
import type { ModelStreamPart, QueueEstimate } from './language-model.js';

/** Tokens a generation is expected to produce before this process has seen one finish. */
export const DEFAULT_EXPECTED_COMPLETION_TOKENS = 300;
/** Weight of the newest generation in the running averages. */
const AVERAGE_WEIGHT = 0.2;
/** A generation that streamed for less than this (a tool call sent whole at the end) says nothing of the speed. */
const MIN_TIMED_SECONDS = 0.2;

/** One finished generation, as seen by the queue. */
export interface GenerationSample {
  completionTokens: number;
  /** From the first streamed part to the end (the prompt's processing and the queue excluded). */
  seconds: number;
  /** The server's own measure (llama.cpp `timings`), preferred when sent. */
  serverTokensPerSecond?: number;
}

export interface GenerationSpeed {
  observe(sample: GenerationSample): void;
  /** Running average of the observed generation speed; undefined before the first generation. */
  tokensPerSecond(): number | undefined;
  /** Running average of tokens per generation (a default before the first one). */
  tokensPerGeneration(): number;
}

export function createGenerationSpeed(): GenerationSpeed {
  let speed: number | undefined;
  let tokens: number | undefined;
  const blend = (average: number | undefined, value: number) => (average === undefined ? value : average + AVERAGE_WEIGHT * (value - average));
  return {
    observe(sample) {
      if (!(sample.completionTokens > 0)) return;
      tokens = blend(tokens, sample.completionTokens);
      const measured = sample.serverTokensPerSecond ?? (sample.seconds >= MIN_TIMED_SECONDS ? sample.completionTokens / sample.seconds : undefined);
      if (measured !== undefined && Number.isFinite(measured) && measured > 0) speed = blend(speed, measured);
    },
    tokensPerSecond: () => speed,
    tokensPerGeneration: () => tokens ?? DEFAULT_EXPECTED_COMPLETION_TOKENS,
  };
}

/**
 * Seconds until the request at `position` (1-based) gets a slot: `position` generations must end
 * first (those running, then those ahead), `slots` of them at a time, each `expectedTokens` long at
 * `tokensPerSecond`. Undefined without a speed.
 */
export function estimateWaitSeconds(input: { position: number; expectedTokens: number; tokensPerSecond?: number; slots: number }): number | undefined {
  const { position, expectedTokens, tokensPerSecond } = input;
  if (tokensPerSecond === undefined || !(tokensPerSecond > 0) || position < 1) return undefined;
  return Math.max(1, Math.ceil((position * expectedTokens) / (tokensPerSecond * Math.max(1, input.slots))));
}

/** One generation being timed: from its first part to its end, its tokens from the usage part. */
export interface GenerationTiming {
  see(part: ModelStreamPart): void;
  /** The generation ended normally: its sample joins the running averages. */
  end(): void;
}

export interface QueueEstimator {
  /** The place, and the wait when a speed is known. */
  at(position: number): QueueEstimate;
  time(): GenerationTiming;
}

export function createQueueEstimator(options: {
  speed?: GenerationSpeed;
  /** The benchmark's speed of the current model, preferred over the observed one. */
  measuredSpeed: () => number | undefined;
  /** Generations at once over every server that is up. */
  slots: () => number;
  now?: () => number;
}): QueueEstimator {
  const speed = options.speed ?? createGenerationSpeed();
  const now = options.now ?? Date.now;
  return {
    at(position) {
      const seconds = estimateWaitSeconds({
        position,
        expectedTokens: speed.tokensPerGeneration(),
        tokensPerSecond: options.measuredSpeed() ?? speed.tokensPerSecond(),
        slots: options.slots(),
      });
      return seconds === undefined ? { position } : { position, seconds };
    },
    time() {
      let firstAt: number | undefined;
      let completionTokens = 0;
      let serverTokensPerSecond: number | undefined;
      return {
        see(part) {
          firstAt ??= now();
          if (part.type !== 'usage') return;
          completionTokens += part.usage.completionTokens;
          serverTokensPerSecond = part.usage.generationTokensPerSecond ?? serverTokensPerSecond;
        },
        end() {
          const seconds = firstAt === undefined ? 0 : (now() - firstAt) / 1000;
          speed.observe({ completionTokens, seconds, ...(serverTokensPerSecond === undefined ? {} : { serverTokensPerSecond }) });
        },
      };
    },
  };
}
