/**
 * Discord's limits are per-route buckets announced in `X-RateLimit-*` headers plus unannounced
 * per-channel limits (about 5 message writes per 5 s). discord.js's REST client already queues
 * per bucket and retries every 429 after `retry_after`, so this adapter adds only a light
 * spacing of edits per channel, where a newer edit of a message that is still waiting replaces
 * the older one (latest wins): streaming never piles stale edits into a bucket.
 */
import type { REST } from 'discord.js';

export interface DiscordPacing {
  /** Minimum time between two edits in one channel or thread. */
  editSpacingMsPerChannel: number;
}

/** About one write a second per channel: Discord allows roughly 5 message writes per 5 s there. */
export const DISCORD_DEFAULT_PACING: DiscordPacing = { editSpacingMsPerChannel: 1000 };

/** Spaces edits per channel and coalesces waiting edits of the same message. */
export interface DiscordEditPacer {
  /** Runs `call` (an edit of `messageId` in `channelId`) in turn; a waiting edit of the same message is replaced, and both callers settle with the newer one. */
  edit(channelId: string, messageId: string, call: () => Promise<void>): Promise<void>;
  /** Rejects every waiting edit; running ones finish. */
  stop(): void;
}

interface PendingEdit {
  messageId: string;
  call: () => Promise<void>;
  settle: { resolve: () => void; reject: (error: unknown) => void }[];
}

interface ChannelLane {
  queue: PendingEdit[];
  running: boolean;
  lastAt: number;
  timer?: NodeJS.Timeout;
}

export function createDiscordEditPacer(pacing: DiscordPacing, now: () => number = Date.now): DiscordEditPacer {
  const lanes = new Map<string, ChannelLane>();
  let stopped = false;

  const pump = (channelId: string, lane: ChannelLane): void => {
    if (lane.running || lane.timer || stopped) return;
    const next = lane.queue[0];
    const wait = lane.lastAt + pacing.editSpacingMsPerChannel - now();
    if (!next && wait <= 0) {
      lanes.delete(channelId);
      return;
    }
    if (!next || wait > 0) {
      // Also kept while idle, so the spacing holds for the next edit and the lane is then dropped.
      lane.timer = setTimeout(() => {
        lane.timer = undefined;
        pump(channelId, lane);
      }, Math.max(wait, 0));
      return;
    }
    lane.queue.shift();
    lane.running = true;
    next.call().then(
      () => next.settle.forEach((waiter) => waiter.resolve()),
      (error: unknown) => next.settle.forEach((waiter) => waiter.reject(error)),
    ).finally(() => {
      lane.running = false;
      lane.lastAt = now();
      pump(channelId, lane);
    });
  };

  return {
    edit(channelId, messageId, call) {
      if (stopped) return Promise.reject(new Error('the Discord adapter is stopped'));
      return new Promise<void>((resolve, reject) => {
        const lane = lanes.get(channelId) ?? { queue: [], running: false, lastAt: 0 };
        lanes.set(channelId, lane);
        const waiting = lane.queue.find((pending) => pending.messageId === messageId);
        if (waiting) {
          waiting.call = call;
          waiting.settle.push({ resolve, reject });
        } else lane.queue.push({ messageId, call, settle: [{ resolve, reject }] });
        pump(channelId, lane);
      });
    },
    stop() {
      stopped = true;
      for (const lane of lanes.values()) {
        if (lane.timer) clearTimeout(lane.timer);
        for (const pending of lane.queue.splice(0)) pending.settle.forEach((waiter) => waiter.reject(new Error('the Discord adapter stopped before this edit')));
      }
      lanes.clear();
    },
  };
}

/** Counts 429 answers the REST client met (and retried); for `/readyz`, tests and the benchmark. */
export function countRateLimits(rest: REST): () => number {
  let count = 0;
  rest.on('response', (_request, response) => {
    if (response.status === 429) count++;
  });
  return () => count;
}
