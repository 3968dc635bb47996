import { describe, expect, it } from 'vitest';
import { createRateLimiter, METHOD_TIERS, TIER_PER_MINUTE } from './rate-limiter.js';

function clock(start = 1_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

describe('rate limiter', () => {
  it('allows a burst per channel, then one message per second, with Retry-After rounded up to whole seconds', () => {
    const time = clock();
    const limiter = createRateLimiter({ postMessageBurst: 3, postMessagePerChannelPerSecond: 1 }, time.now);
    const burst = [1, 2, 3, 4].map(() => limiter.take('chat.postMessage', 'C1'));
    expect(burst.map((decision) => decision.limited)).toEqual([false, false, false, true]);
    expect(burst[3]).toEqual({ limited: true, retryAfterSeconds: 1 });
    expect(limiter.take('chat.postMessage', 'C2').limited).toBe(false);

    time.advance(400);
    expect(limiter.take('chat.postMessage', 'C1')).toEqual({ limited: true, retryAfterSeconds: 1 });
    time.advance(600);
    expect(limiter.take('chat.postMessage', 'C1').limited).toBe(false);
    expect(limiter.take('chat.postMessage', 'C1').limited).toBe(true);
  });

  it('computes Retry-After from the refill rate', () => {
    const time = clock();
    const limiter = createRateLimiter({ postMessageBurst: 1, postMessagePerChannelPerSecond: 0.25 }, time.now);
    limiter.take('chat.postMessage', 'C1');
    expect(limiter.take('chat.postMessage', 'C1')).toEqual({ limited: true, retryAfterSeconds: 4 });
    time.advance(3_000);
    expect(limiter.take('chat.postMessage', 'C1')).toEqual({ limited: true, retryAfterSeconds: 1 });
  });

  it('limits chat.update over a sliding minute for the whole app', () => {
    const time = clock();
    const limiter = createRateLimiter({ updatePerMinute: 3 }, time.now);
    for (const channel of ['C1', 'C2', 'C3']) {
      expect(limiter.take('chat.update', channel).limited).toBe(false);
      time.advance(10_000);
    }
    // The oldest update (at t0) leaves the window at t0 + 60 s, 30 s from now.
    expect(limiter.take('chat.update', 'C4')).toEqual({ limited: true, retryAfterSeconds: 30 });
    time.advance(30_000);
    expect(limiter.take('chat.update', 'C4').limited).toBe(false);
  });

  it('leaves other methods alone, and can be disabled or reconfigured', () => {
    const time = clock();
    const limiter = createRateLimiter({ postMessageBurst: 1 }, time.now);
    expect(limiter.take('reactions.add', 'C1').limited).toBe(false);
    limiter.take('chat.postMessage', 'C1');
    expect(limiter.take('chat.postMessage', 'C1').limited).toBe(true);
    limiter.configure({ enabled: false });
    expect(limiter.take('chat.postMessage', 'C1').limited).toBe(false);
    limiter.configure({ enabled: true, postMessageBurst: 2 });
    expect([limiter.take('chat.postMessage', 'C1'), limiter.take('chat.postMessage', 'C1')].every((d) => !d.limited)).toBe(true);
    expect(limiter.settings()).toMatchObject({ enabled: true, postMessageBurst: 2, updatePerMinute: 50 });
  });

  it("holds each method to its own tier's window for the workspace: a busy method leaves the others alone", () => {
    const time = clock();
    const limiter = createRateLimiter({}, time.now);
    const burst = (method: string, count: number, channel = (index: number) => `C${index}`) =>
      Array.from({ length: count }, (_, index) => limiter.take(method, channel(index))).filter((decision) => decision.limited).length;
    // Tier 2 (chat.stopStream), Tier 3 (chat.delete, conversations.info), Tier 4 (chat.appendStream): a burst up to the tier, then 429.
    expect(burst('chat.stopStream', TIER_PER_MINUTE[2] + 1)).toBe(1);
    expect(burst('chat.delete', TIER_PER_MINUTE[3] + 1)).toBe(1);
    expect(burst('chat.appendStream', TIER_PER_MINUTE[4] + 1)).toBe(1);
    expect(limiter.take('conversations.info', 'C1').limited).toBe(false);
    expect(limiter.take('assistant.threads.setStatus', undefined).limited).toBe(false);
    expect(METHOD_TIERS['chat.startStream']).toBe(2);
    time.advance(60_001);
    expect(limiter.take('chat.stopStream', 'C1').limited).toBe(false);
  });

  it('counts chat.startStream against its channel posting bucket and its Tier 2 window; a refused call spends neither', () => {
    const time = clock();
    const limiter = createRateLimiter({ postMessageBurst: 1, startStreamPerMinute: 2 }, time.now);
    expect(limiter.take('chat.startStream', 'C1').limited).toBe(false);
    // The channel's bucket is empty: refused, and the window is not charged for it.
    expect(limiter.take('chat.startStream', 'C1')).toEqual({ limited: true, retryAfterSeconds: 1 });
    expect(limiter.take('chat.postMessage', 'C1').limited).toBe(true);
    expect(limiter.take('chat.startStream', 'C2').limited).toBe(false);
    // The window (2 a minute) is spent: a third channel waits for the oldest call to leave it.
    expect(limiter.take('chat.startStream', 'C3')).toEqual({ limited: true, retryAfterSeconds: 60 });
    expect(limiter.take('chat.postMessage', 'C3').limited).toBe(false);
  });
});
