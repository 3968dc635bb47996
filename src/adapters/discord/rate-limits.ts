/**
 * Discord's limits are per-route buckets announced in `X-RateLimit-*` headers plus unannounced
 * per-channel limits (about 5 message writes per 5 s). discord.js's REST client already queues
 * per bucket and retries every 429 after `retry_after`, so this adapter adds only a light
 * spacing of edits per channel, where a newer edit of a message that is still waiting replaces
 * the older one (latest wins): streaming never piles stale edits into a bucket. The spacing runs
 * on the same budget scheduler as Slack's (`../shared/call-budget.ts`).
 */
import type { REST } from 'discord.js';
import { createCallBudget, type SharedBudget } from '../shared/call-budget.js';
import { reportPlatformCall } from '../shared/platform-calls.js';

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

/** Each channel is one budget of the shared scheduler: a bucket of one write per spacing. */
export function createDiscordEditPacer(pacing: DiscordPacing, now: () => number = Date.now, shared?: SharedBudget): DiscordEditPacer {
  const budget = createCallBudget({
    shared: shared && ((name, rule) => shared(`discord:${name}`, rule)),
    ruleFor: () => ({ kind: 'bucket', capacity: 1, perSecond: 1000 / Math.max(1, pacing.editSpacingMsPerChannel) }),
    // The channel's bucket is the only spacing: an edit of a message waits for its channel, not for itself.
    editIntervalMs: 0,
    now,
  });
  return {
    edit(channelId, messageId, call) {
      return budget.schedule({ budget: `channel:${channelId}`, priority: 'edit', coalesceKey: `${channelId}/${messageId}`, call });
    },
    stop() {
      budget.stop();
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

/** Reports every REST answer (429s included) to telemetry, as `METHOD /route` and its HTTP status. */
export function reportDiscordCalls(rest: REST): void {
  rest.on('response', (request, response) => {
    const now = Date.now();
    reportPlatformCall({
      platform: 'discord',
      method: `${request.method.toUpperCase()} ${request.route}`,
      status: String(response.status),
      startedAt: now,
      endedAt: now,
    });
  });
}
