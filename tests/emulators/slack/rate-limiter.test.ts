import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.js';

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
});
