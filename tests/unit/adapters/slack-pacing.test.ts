/**
 * Slack pacing from Slack's own quotas (issue 27), on a fake clock through the real budget and
 * limiter: each method spends its own tier, so a busy or rate-limited method never holds back an
 * unrelated one; streams share a short append budget in turn, the one updated longest ago first;
 * a Stop button never takes a reply's turn to post.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSlackCaller } from '../../../src/adapters/slack/call-budget.js';
import { createSlackCallLimiter, SLACK_DEFAULT_RATE_LIMITS } from '../../../src/adapters/slack/rate-limits.js';
import { createCallBudget, type CallPriority } from '../../../src/adapters/shared/call-budget.js';
import { createMemoryLogger } from '../../../src/core/logger.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const rateLimited = () => Object.assign(new Error('A rate-limit has been reached'), { code: 'slack_webapi_rate_limited_error', retryAfter: 5 });

/** The Slack caller over the real limiter; every call that reaches "Slack" is recorded with its time. */
function slackPacing() {
  const started = Date.now();
  const sent: { method: string; at: number }[] = [];
  const refuseNext = new Set<string>();
  const limiter = createSlackCallLimiter(SLACK_DEFAULT_RATE_LIMITS, createMemoryLogger());
  const caller = createSlackCaller(SLACK_DEFAULT_RATE_LIMITS, limiter, 1000);
  const call = (method: string, channel = 'C1', priority: CallPriority = 'final') =>
    caller({
      method,
      channel,
      priority,
      call: async () => {
        sent.push({ method, at: Date.now() - started });
        if (refuseNext.delete(method)) throw rateLimited();
        return { ok: true };
      },
    });
  const count = (method: string) => sent.filter((call) => call.method === method).length;
  return { sent, call, count, refuseNext, stop: () => (caller.budget.stop(), limiter.stop()) };
}

describe('Slack pacing per method', () => {
  it('does not delay a call behind a busy unrelated method: conversations.info goes at once while chat.delete waits for its Tier 3', async () => {
    const { sent, call, count, stop } = slackPacing();
    for (let index = 0; index < 60; index++) void call('chat.delete').catch(() => undefined);
    void call('conversations.info');
    await vi.advanceTimersByTimeAsync(0);
    // Tier 3: 50 a minute at once (Slack allows bursts); the other 10 wait for the window.
    expect(count('chat.delete')).toBe(50);
    expect(sent.find((call) => call.method === 'conversations.info')?.at).toBe(0);
    await stop();
  });

  it("holds each method to its own documented tier: chat.stopStream (Tier 2) sends 20 in a burst, then waits for Slack's minute", async () => {
    const { call, count, stop } = slackPacing();
    const stops = Array.from({ length: 25 }, (_, index) => call('chat.stopStream', `C${index}`));
    await vi.advanceTimersByTimeAsync(0);
    expect(count('chat.stopStream')).toBe(20);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(count('chat.stopStream')).toBe(20);
    await vi.advanceTimersByTimeAsync(2_100);
    await Promise.all(stops);
    expect(count('chat.stopStream')).toBe(25);
    await stop();
  });

  it('pauses only the method that met a 429 for Retry-After: chat.delete goes on meanwhile', async () => {
    const { sent, call, count, refuseNext, stop } = slackPacing();
    refuseNext.add('conversations.info');
    const limitedCall = call('conversations.info');
    await vi.advanceTimersByTimeAsync(0);
    expect(count('conversations.info')).toBe(1);
    const next = call('conversations.info');
    void call('chat.delete');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.map((call) => call.method)).toEqual(['conversations.info', 'chat.delete']);
    await vi.advanceTimersByTimeAsync(4_900);
    expect(count('conversations.info')).toBe(1);
    await vi.advanceTimersByTimeAsync(1_200);
    await Promise.all([limitedCall, next]);
    // The refused call was tried again after Retry-After, and the one queued behind it went too.
    expect(count('conversations.info')).toBe(3);
    await stop();
  });

  it('hands a stream start refused for longer than a reply waits (Tier 2 spent, e.g. after a restart) back at once; the channel still posts, later starts wait', async () => {
    const { sent, call, count, refuseNext, stop } = slackPacing();
    refuseNext.add('chat.startStream');
    const refused = call('chat.startStream').then(
      () => 'sent',
      (error: { code?: string }) => error.code,
    );
    await vi.advanceTimersByTimeAsync(0);
    // Retry-After 5 s is more than a reply waits for its first words: the caller posts a placeholder instead.
    expect(await refused).toBe('slack_webapi_rate_limited_error');
    void call('chat.postMessage');
    const later = call('chat.startStream');
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.map((entry) => entry.method)).toEqual(['chat.startStream', 'chat.postMessage']);
    await vi.advanceTimersByTimeAsync(5_100);
    await later;
    expect(count('chat.startStream')).toBe(2);
    await stop();
  });
});

describe('sharing a short budget among streams', () => {
  it('gives the next turn to the stream whose last update is oldest, whatever the order they asked in', async () => {
    const budget = createCallBudget({ ruleFor: () => ({ kind: 'bucket', capacity: 1, perSecond: 1 }), editIntervalMs: 0 });
    const order: string[] = [];
    const append = (stream: string) =>
      budget.schedule({ budget: 'chat.appendStream', priority: 'edit', coalesceKey: stream, call: async () => void order.push(stream) });
    // A updated at 0 s, B at 1 s, C at 2 s: the budget is spent each time.
    for (const stream of ['A', 'B', 'C']) {
      void append(stream);
      await vi.advanceTimersByTimeAsync(stream === 'C' ? 0 : 1_000);
    }
    expect(order).toEqual(['A', 'B', 'C']);
    order.length = 0;
    // Now all three want to append while the budget is empty: C asks first, A last.
    const waiting = ['C', 'B', 'A'].map(append);
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual([]);
    await vi.advanceTimersByTimeAsync(3_000);
    await Promise.all(waiting);
    expect(order).toEqual(['A', 'B', 'C']);
    budget.stop();
  });

  it("never lets a Stop button take a reply's turn to post: spare calls wait while first posts are expected", async () => {
    const budget = createCallBudget({ ruleFor: () => ({ kind: 'bucket', capacity: 4, perSecond: 1 }), editIntervalMs: 0 });
    const order: string[] = [];
    const post = (name: string, priority: CallPriority) =>
      budget.schedule({ budget: 'post:C1', priority, coalesceKey: name, call: async () => void order.push(name) });
    // A lone reply: its button goes at once, before its first words.
    const lone = budget.expectFirst('post:C1');
    void post('button 1', 'spare');
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(['button 1']);
    lone();
    // Five replies at once in the channel: their first posts take the burst, no button before them.
    const replies = Array.from({ length: 5 }, () => budget.expectFirst('post:C1'));
    void post('button 2', 'spare');
    for (let index = 0; index < 5; index++) void post(`first ${index}`, 'first').then(replies[index]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(order.indexOf('button 2')).toBeGreaterThan(order.indexOf('first 4'));
    budget.stop();
  });
});
