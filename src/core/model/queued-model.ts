/**
 * The generation queue in front of a model: at most `maxConcurrent` generations at a time, people
 * before workflows before schedules and first come first served within a class, so parallel steps
 * and many channels share one local GPU fairly. Waiting
 * requests know their place in the queue, for the run card's "2nd in queue". It is the one-server
 * case of the server pool (`server-pool-model.ts`), on an in-process slot pool unless one is given.
 */
import { createLocalSlots } from '../coordination/local-slots.js';
import type { SlotPool } from '../coordination/coordination.js';
import type { LanguageModel, QueuedModel } from './language-model.js';
import { createServerPoolModel } from './server-pool-model.js';

export type { QueuedModel } from './language-model.js';

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
  /** Where the slots come from (default: a pool of this model alone, in this process). */
  slots?: SlotPool;
  /** The model's name in `slots` (default `model`). */
  server?: string;
  /** Generation tokens per second `tsuka benchmark` measured, when there is a profile. */
  measuredSpeed?: (modelId: string) => number | undefined;
}

/** True for a model wrapped by `createQueuedModel` or `createServerPoolModel`. */
export function isQueuedModel(model: LanguageModel): model is QueuedModel {
  return typeof (model as Partial<QueuedModel>).position === 'function';
}

export function createQueuedModel(model: LanguageModel, options: QueuedModelOptions): QueuedModel {
  return createServerPoolModel({
    servers: [options.server ?? 'model'],
    modelFor: () => model,
    slots: options.slots ?? createLocalSlots(),
    capacity: options.maxConcurrent,
    onQueueChange: options.onQueueChange,
    ...(options.measuredSpeed ? { measuredSpeed: options.measuredSpeed } : {}),
  });
}
