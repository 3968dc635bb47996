/**
 * The generation queue over one or several model servers serving the same model. Every call takes
 * a generation slot from the coordination's slot pool — `capacity` per server, people before
 * workflows before schedules, first come first served within a class, across every replica
 * (in-process, or on Redis) — streams from the server it was granted,
 * and gives the slot back when the stream ends, fails or is abandoned. With a health tracker, a
 * server that fails before the first token is marked down and the call is tried again on another
 * one; waiting calls are dispatched again whenever a server goes down or comes back. Each finished
 * generation feeds the running speed behind the queue estimates (`generation-speed.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { SlotGrant, SlotPool } from '../coordination/coordination.js';
import { AbortedError, ModelError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { SlotTicket } from '../coordination/slot-priority.js';
import type { LanguageModel, ModelRequest, ModelStreamPart, QueuedModel } from './language-model.js';
import type { ServerHealth } from './server-health.js';
import { createQueueEstimator, type GenerationSpeed } from './generation-speed.js';

export interface ServerPoolModelOptions {
  /** Every server, in configured order (the first is the primary: its model names the pool). */
  servers: readonly string[];
  /** The model on `server` right now (it may be switched with `/tsuka model`). */
  modelFor(server: string): LanguageModel;
  slots: SlotPool;
  /** Generations at once per server. */
  capacity: number;
  /** Failover between servers; without it every server counts as up and a failure is the caller's. */
  health?: ServerHealth;
  /** A waiting request's id, unique across replicas (default: a random UUID). */
  newId?: () => string;
  /** Called whenever the number of this process's waiting requests changes. */
  onQueueChange?: (waiting: number) => void;
  /** Generation tokens per second `tsuka benchmark` measured for `modelId`, when there is a profile. */
  measuredSpeed?: (modelId: string) => number | undefined;
  /** What this process observed (default: a fresh running average). */
  speed?: GenerationSpeed;
  /** Clock of the generation timing (tests). */
  now?: () => number;
  logger?: Logger;
}

/** A failure that says the server is not serving (worth another server): unreachable, timed out, 5xx, 429. */
export function isServerFailure(error: unknown): boolean {
  return error instanceof ModelError && error.retryable;
}

export function createServerPoolModel(options: ServerPoolModelOptions): QueuedModel {
  if (options.servers.length === 0) throw new TypeError('A server pool needs at least one server.');
  const logger = options.logger ?? silentLogger;
  const health = options.health;
  const capacity = Math.max(1, Math.floor(options.capacity));
  const newId = options.newId ?? (() => randomUUID());
  const primary = () => options.modelFor(options.servers[0]!);
  // Requests waiting for a slot, with their abort signal (the run card asks by signal).
  const waiting: { signal?: AbortSignal; id: string }[] = [];
  const changed = () => options.onQueueChange?.(waiting.length);
  /** Each run's ticket, by the abort signal its model calls carry. */
  const tickets = new WeakMap<AbortSignal, SlotTicket>();
  const estimator = createQueueEstimator({
    ...(options.speed ? { speed: options.speed } : {}),
    ...(options.now ? { now: options.now } : {}),
    measuredSpeed: () => options.measuredSpeed?.(primary().modelId),
    slots: () => capacity * (health ? Math.max(1, health.up().length) : options.servers.length),
  });

  const upServers = (cause?: unknown): readonly string[] => {
    const servers = health ? health.up() : options.servers;
    if (servers.length > 0) return servers;
    throw new ModelError(`None of the ${options.servers.length} model servers answers right now.`, { code: 'model_unreachable', retryable: true, cause });
  };

  /** Waits for a slot on a server that is up; asks again over the new set whenever health changes. */
  async function acquire(entry: { id: string }, signal: AbortSignal | undefined, lastError: unknown): Promise<SlotGrant> {
    const ticket = signal ? tickets.get(signal) : undefined;
    for (;;) {
      if (signal?.aborted) throw new AbortedError();
      const servers = upServers(lastError);
      const controller = new AbortController();
      let redispatched = false;
      const unsubscribe = health?.onChange(() => {
        redispatched = true;
        controller.abort();
      });
      const onAbort = () => controller.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        return await options.slots.acquire({ servers, capacity, signal: controller.signal, id: entry.id, ...(ticket ? { ticket } : {}) });
      } catch (error) {
        if (signal?.aborted || !redispatched || !(error instanceof AbortedError)) throw error;
        entry.id = newId();
      } finally {
        unsubscribe?.();
        signal?.removeEventListener('abort', onAbort);
      }
    }
  }

  async function waitTurn(request: ModelRequest, lastError: unknown): Promise<SlotGrant> {
    const entry = { signal: request.signal, id: newId() };
    waiting.push(entry);
    changed();
    try {
      return await acquire(entry, request.signal, lastError);
    } finally {
      waiting.splice(waiting.indexOf(entry), 1);
      changed();
    }
  }

  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    let lastError: unknown;
    // Each failure marks a server down, so a call tries each server at most about once.
    for (let failures = 0; ; ) {
      const grant = await waitTurn(request, lastError);
      try {
        // Granted while it went down: give the slot back and ask again.
        if (health && !health.isUp(grant.server)) continue;
        let yielded = false;
        const timing = estimator.time();
        try {
          for await (const part of options.modelFor(grant.server).stream(request)) {
            yielded = true;
            timing.see(part);
            yield part;
          }
          timing.end();
          return;
        } catch (error) {
          if (!health || yielded || request.signal?.aborted || !isServerFailure(error)) throw error;
          health.markDown(grant.server, error);
          failures += 1;
          lastError = error;
          if (failures >= options.servers.length || health.up().length === 0) throw error;
          logger.warn('model server failed before the first token; trying another', { server: grant.server, error });
        }
      } finally {
        grant.release();
      }
    }
  }

  return {
    // Getters: the models behind may be switched (`/tsuka model`).
    get providerId() {
      return primary().providerId;
    },
    get modelId() {
      return primary().modelId;
    },
    get contextWindow() {
      return primary().contextWindow;
    },
    position(signal) {
      const entry = waiting.find((candidate) => candidate.signal === signal);
      return entry ? options.slots.position(entry.id) : undefined;
    },
    estimate(signal) {
      const entry = waiting.find((candidate) => candidate.signal === signal);
      const position = entry ? options.slots.position(entry.id) : undefined;
      return position === undefined ? undefined : estimator.at(position);
    },
    tag(signal, ticket) {
      tickets.set(signal, ticket);
    },
    async queue() {
      return (await options.slots.queue()).map((waiter) => ({ ...estimator.at(waiter.position), ticket: waiter.ticket, waitedMs: waiter.waitedMs }));
    },
    waiting: () => waiting.length,
    stream,
  };
}
