/**
 * Slack pacing with two replicas sharing their budgets (issue 27), on a fake clock: the shared
 * budget is the in-process coordination's `takeToken` (the rules Redis applies), recorded. A
 * reply's turn to post spends its channel's posting budget; chat.startStream's Tier 2 window (20 a
 * minute per workspace) is spent only by a stream that really starts, and when the other replica
 * spent that window, a reply posts a placeholder instead of waiting out the minute.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebClient } from '@slack/web-api';
import { createSlackSurface } from '../../../src/adapters/slack/surface.js';
import { createSlackCaller, slackBudgetRule } from '../../../src/adapters/slack/call-budget.js';
import { SLACK_DEFAULT_RATE_LIMITS } from '../../../src/adapters/slack/rate-limits.js';
import { createCallBudget, type SharedBudget } from '../../../src/adapters/shared/call-budget.js';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';
import { createMemoryLogger } from '../../../src/core/logger.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** "Slack": records every Web API call; every call succeeds. */
function recordingSlack() {
  const calls: { method: string; args: Record<string, unknown> }[] = [];
  let ts = 0;
  const answer = (method: string) => async (args: Record<string, unknown>) => {
    calls.push({ method, args });
    return { ok: true, ts: `1700000001.${String(++ts).padStart(6, '0')}` };
  };
  const client = {
    chat: {
      postMessage: answer('chat.postMessage'),
      update: answer('chat.update'),
      delete: answer('chat.delete'),
      startStream: answer('chat.startStream'),
      appendStream: answer('chat.appendStream'),
      stopStream: answer('chat.stopStream'),
    },
    assistant: { threads: { setStatus: answer('assistant.threads.setStatus') } },
  } as unknown as WebClient;
  return { client, calls, count: (method: string) => calls.filter((call) => call.method === method).length };
}

/** The budgets both replicas share (Redis in production), with what each budget was charged. */
function sharedBudgets() {
  const coordination = createLocalCoordination();
  const charged = new Map<string, number>();
  const shared: SharedBudget = async (name, rule) => {
    const wait = await coordination.takeToken(name, rule);
    if (wait === 0) charged.set(name, (charged.get(name) ?? 0) + 1);
    return wait;
  };
  return { shared, charged, coordination };
}

function replica(client: WebClient, shared: SharedBudget) {
  const limiter = {
    schedule: async <T>(_method: string, _channel: string | undefined, call: () => Promise<T>) => call(),
    rateLimitedCount: 0,
    stop: async () => undefined,
  };
  const caller = createSlackCaller(SLACK_DEFAULT_RATE_LIMITS, limiter, 200, shared);
  return { caller, surface: createSlackSurface({ client, caller, editIntervalMs: 200, logger: createMemoryLogger() }) };
}

describe('Slack pacing shared by two replicas', () => {
  it('answers twenty short replies in two channels within seconds: no reply waits out the minute of chat.startStream', async () => {
    const slack = recordingSlack();
    const { shared, charged } = sharedBudgets();
    const replicas = [replica(slack.client, shared), replica(slack.client, shared)];
    let settled = 0;
    const replies = Array.from({ length: 20 }, (_, index) => {
      const channel = index % 2 === 0 ? 'C6' : 'C10';
      const stream = replicas[index % 2]!.surface.startStream!({
        thread: `slack:T1/${channel}/1700000000.${String(index).padStart(6, '0')}`,
        recipient: 'slack:U7',
      });
      stream.status('Thinking…');
      stream.append(`Busy answer ${index}.`);
      return stream.stop({ text: `Busy answer ${index}.` }).finally(() => settled++);
    });
    // Ten posts a channel at about one a second: well within half a minute, not after Tier 2's minute.
    await vi.advanceTimersByTimeAsync(20_000);
    expect(settled).toBe(20);
    await Promise.all(replies);
    const answered = slack.calls.filter((call) => /Busy answer \d+\./.test(String(call.args.text ?? call.args.markdown_text ?? '')));
    expect(answered).toHaveLength(20);
    // Tier 2 was charged once per stream that started, never for a reply posted whole.
    expect(charged.get('slack:chat.startStream') ?? 0).toBe(slack.count('chat.startStream'));
    for (const { caller } of replicas) caller.budget.stop();
  });

  it('posts a placeholder at once when the other replica spent the Tier 2 window of chat.startStream', async () => {
    const slack = recordingSlack();
    const { shared, coordination } = sharedBudgets();
    // The other replica started the workspace's 20 streams of this minute.
    const tier2 = slackBudgetRule(SLACK_DEFAULT_RATE_LIMITS)('chat.startStream');
    for (let index = 0; index < 20; index++) expect(await coordination.takeToken('slack:chat.startStream', tier2)).toBe(0);
    const { surface, caller } = replica(slack.client, shared);
    const stream = surface.startStream!({ thread: 'slack:T1/C6/1700000000.000100', recipient: 'slack:U7' });
    stream.append('First words ');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(slack.calls.map((call) => call.method).filter((method) => method !== 'assistant.threads.setStatus')).toEqual(['chat.postMessage']);
    const done = stream.stop({ text: 'First words, then the rest.' });
    await vi.advanceTimersByTimeAsync(2_000);
    await done;
    expect(slack.count('chat.update')).toBe(1);
    expect(slack.count('chat.startStream')).toBe(0);
    caller.budget.stop();
  });
});

describe('call budget: a call on several shared budgets', () => {
  it('is charged once per budget while it waits for one of them, and not at all on those it never reached', async () => {
    const asked: string[] = [];
    let slowWaits = 1;
    const shared: SharedBudget = async (name) => {
      asked.push(name);
      // The other replica spent `slow` for the next second, once.
      if (name === 'slow' && slowWaits-- > 0) return 1_000;
      return 0;
    };
    const budget = createCallBudget({ ruleFor: () => ({ kind: 'bucket', capacity: 5, perSecond: 1 }), editIntervalMs: 0, shared });
    let sent = 0;
    const call = budget.schedule({ budget: ['fast', 'slow', 'last'], priority: 'first', call: async () => void sent++ });
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    await call;
    expect(sent).toBe(1);
    // `fast` granted once and kept; `last` asked only once `slow` had room.
    expect(asked).toEqual(['fast', 'slow', 'slow', 'last']);
    budget.stop();
  });
});
