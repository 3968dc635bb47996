/**
 * A limiter in front of a model endpoint (bottleneck): at most `maxConcurrent` generations at a
 * time, first come first served, so parallel steps and many channels share one local GPU fairly.
 * Waiting requests know their place in the queue, for the run card's "2nd in queue".
 */
import Bottleneck from 'bottleneck';
import { AbortedError } from '../errors.js';
import type { LanguageModel, ModelRequest, ModelStreamPart } from './language-model.js';

/** Default concurrency: one generation at a time for LOCAL providers (one GPU); cloud endpoints take more. */
export const LOCAL_MAX_CONCURRENT_GENERATIONS = 1;
export const CLOUD_MAX_CONCURRENT_GENERATIONS = 4;

/** The limiter's default for a provider class, unless the operator configured one. */
export function defaultMaxConcurrent(providerClass: 'LOCAL' | 'CLOUD', configured?: number): number {
  if (configured !== undefined && configured >= 1) return Math.floor(configured);
  return providerClass === 'LOCAL' ? LOCAL_MAX_CONCURRENT_GENERATIONS : CLOUD_MAX_CONCURRENT_GENERATIONS;
}

export interface QueuedModelOptions {
  maxConcurrent: number;
  /** Called whenever the number of waiting requests changes. */
  onQueueChange?: (waiting: number) => void;
}

export interface QueuedModel extends LanguageModel {
  /** 1-based place in the queue of the request made with `signal`; undefined when it is not waiting. */
  position(signal: AbortSignal): number | undefined;
  /** How many requests wait. */
  waiting(): number;
}

/** True for a model wrapped by `createQueuedModel`. */
export function isQueuedModel(model: LanguageModel): model is QueuedModel {
  return typeof (model as Partial<QueuedModel>).position === 'function';
}

export function createQueuedModel(model: LanguageModel, options: QueuedModelOptions): QueuedModel {
  const limiter = new Bottleneck({ maxConcurrent: Math.max(1, options.maxConcurrent) });
  const waiting: { signal?: AbortSignal }[] = [];
  const changed = () => options.onQueueChange?.(waiting.length);

  async function waitTurn(request: ModelRequest): Promise<() => void> {
    const entry = { signal: request.signal };
    waiting.push(entry);
    changed();
    let release: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started = new Promise<void>((resolve, reject) => {
      limiter
        .schedule(() => {
          resolve();
          return finished;
        })
        .catch(reject);
    });
    const signal = request.signal;
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new AbortedError());
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([started, aborted]);
      return release;
    } catch (error) {
      // Given up while waiting: the slot, when it comes, is handed straight back.
      release();
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      waiting.splice(waiting.indexOf(entry), 1);
      changed();
    }
  }

  return {
    // Getters: the model behind may be switchable (`/tsuka model`).
    get providerId() {
      return model.providerId;
    },
    get modelId() {
      return model.modelId;
    },
    get contextWindow() {
      return model.contextWindow;
    },
    position(signal) {
      const index = waiting.findIndex((entry) => entry.signal === signal);
      return index < 0 ? undefined : index + 1;
    },
    waiting: () => waiting.length,
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      const release = await waitTurn(request);
      try {
        yield* model.stream(request);
      } finally {
        release();
      }
    },
  };
}
