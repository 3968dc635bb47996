/**
 * The Slack reply stream over a recording Web API client: the streaming methods with the first
 * text at once, the fallback to placeholder + chat.update when a workspace refuses them (and that
 * it is remembered), and a reply folded into one post when it is complete before its turn.
 */
import { describe, expect, it, vi } from 'vitest';
import type { WebClient } from '@slack/web-api';
import { createSlackSurface } from '../../../src/adapters/slack/surface.js';
import { createSlackCaller } from '../../../src/adapters/slack/call-budget.js';
import { SLACK_DEFAULT_RATE_LIMITS } from '../../../src/adapters/slack/rate-limits.js';
import { createMemoryLogger } from '../../../src/core/logger.js';

const THREAD = 'slack:T1/C1/1700000000.000100';

function recordingClient(refuse?: string) {
  const calls: { method: string; args: Record<string, unknown> }[] = [];
  let ts = 0;
  const answer = (method: string) => async (args: Record<string, unknown>) => {
    calls.push({ method, args });
    if (refuse && method.includes('Stream'))
      throw Object.assign(new Error(`An API error occurred: ${refuse}`), { code: 'slack_webapi_platform_error', data: { ok: false, error: refuse } });
    return { ok: true, ts: `1700000001.00${++ts}` };
  };
  const client = {
    chat: {
      postMessage: answer('chat.postMessage'),
      update: answer('chat.update'),
      startStream: answer('chat.startStream'),
      appendStream: answer('chat.appendStream'),
      stopStream: answer('chat.stopStream'),
    },
    assistant: { threads: { setStatus: answer('assistant.threads.setStatus') } },
  } as unknown as WebClient;
  return { client, calls, methods: () => calls.map((call) => call.method).filter((method) => method !== 'assistant.threads.setStatus') };
}

function surfaceOn(client: WebClient, limits = SLACK_DEFAULT_RATE_LIMITS) {
  // A call reaches Slack a moment after it is handed over, as through the real limiter.
  const limiter = {
    schedule: async <T>(_method: string, _channel: string | undefined, call: () => Promise<T>) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      return call();
    },
    rateLimitedCount: 0,
    stop: async () => undefined,
  };
  const logger = createMemoryLogger();
  const caller = createSlackCaller(limits, limiter, 1000);
  return { surface: createSlackSurface({ client, caller, editIntervalMs: 1000, logger }), caller, logger };
}

const until = async (check: () => boolean) => {
  for (let attempt = 0; attempt < 400 && !check(); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('Slack reply stream', () => {
  it('starts the stream with the first text, appends, and stops with the rest and the buttons, under the character', async () => {
    const { client, calls, methods } = recordingClient();
    const { surface } = surfaceOn(client);
    const stream = surface.startStream!({ thread: THREAD, identity: { name: 'Geordi', avatar: ':wrench:' }, recipient: 'slack:U7' });
    stream.status('💭 …');
    stream.append('Hello ');
    await until(() => methods().includes('chat.startStream'));
    const start = calls.find((call) => call.method === 'chat.startStream')!;
    expect(start.args).toMatchObject({
      channel: 'C1',
      thread_ts: '1700000000.000100',
      markdown_text: 'Hello ',
      recipient_user_id: 'U7',
      recipient_team_id: 'T1',
      username: 'Geordi',
      icon_emoji: ':wrench:',
    });
    // The thread was acknowledged first, on its own budget.
    expect(calls[0]).toMatchObject({ method: 'assistant.threads.setStatus', args: { status: '💭 …' } });
    await stream.stop({ text: 'Hello world <!channel>', buttons: [{ actionId: 'more', label: 'More', style: 'primary', value: 'v' }] });
    const stop = calls.find((call) => call.method === 'chat.stopStream')!;
    expect(stop.args.markdown_text).toBe('world &lt;!channel&gt;');
    expect(JSON.stringify(stop.args.blocks)).toContain('"action_id":"more"');
    expect(methods()).not.toContain('chat.update');
    // Nothing is sent twice and nothing is lost: the pieces add up to the whole reply.
    const pieces = calls.filter((call) => call.method.includes('Stream')).map((call) => String(call.args.markdown_text ?? ''));
    expect(pieces.join('')).toBe('Hello world &lt;!channel&gt;');
  });

  it('appends only what Slack does not show yet while text keeps arriving', async () => {
    const { client, calls, methods } = recordingClient();
    const { surface } = surfaceOn(client);
    const stream = surface.startStream!({ thread: THREAD, recipient: 'slack:U7' });
    let text = '';
    for (let index = 0; index < 50; index++) {
      text += `word${index} `;
      stream.append(text);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await stream.stop({ text: `${text}end.` });
    expect(methods()[0]).toBe('chat.startStream');
    const pieces = calls.filter((call) => call.method.includes('Stream')).map((call) => String(call.args.markdown_text ?? ''));
    expect(pieces.join('')).toBe(`${text}end.`);
  });

  it.each(['not_allowed', 'unknown_method', 'missing_scope'])(
    'falls back to placeholder + chat.update when startStream is refused with %s, and remembers it',
    async (refusal) => {
      const { client, methods } = recordingClient(refusal);
      const { surface, logger } = surfaceOn(client);
      const first = surface.startStream!({ thread: THREAD, recipient: 'slack:U7' });
      first.append('Partial ');
      await until(() => methods().includes('chat.postMessage'));
      expect(methods()).toEqual(['chat.startStream', 'chat.postMessage']);
      await first.stop({ text: 'Partial answer, complete.' });
      expect(methods().at(-1)).toBe('chat.update');
      expect(logger.entries.filter((entry) => /streaming methods were refused/.test(entry.message))).toHaveLength(1);

      // The next reply in this workspace does not try again.
      const second = surface.startStream!({ thread: THREAD, recipient: 'slack:U7' });
      second.status('💭 …');
      await until(() => methods().filter((method) => method === 'chat.postMessage').length === 2);
      await second.stop({ text: 'Second answer.' });
      expect(methods().filter((method) => method === 'chat.startStream')).toHaveLength(1);
    },
  );

  it('folds a reply into one chat.postMessage when its text is complete before its turn to post', async () => {
    const { client, methods, calls } = recordingClient();
    const { surface, caller } = surfaceOn(client, { ...SLACK_DEFAULT_RATE_LIMITS, postBurst: 1, postsPerSecondPerChannel: 1 });
    // Another post spends the channel's budget: this reply waits its turn.
    await surface.post({ thread: THREAD, text: 'someone else' });
    const stream = surface.startStream!({ thread: THREAD, recipient: 'slack:U7' });
    stream.append('The whole ');
    expect(caller.budget.waiting).toBe(1);
    await stream.stop({ text: 'The whole answer.' });
    expect(methods()).toEqual(['chat.postMessage', 'chat.postMessage']);
    expect(calls.at(-1)!.args.text).toBe('The whole answer.');
  });

  it("posts a placeholder and edits it when chat.startStream's Tier 2 window would hold the first words back", async () => {
    const { client, methods } = recordingClient();
    const { surface, caller } = surfaceOn(client);
    // The workspace's 20 stream starts of the minute are spent: the next would wait half a minute.
    caller.budget.pause('chat.startStream', 30_000);
    const stream = surface.startStream!({ thread: THREAD, recipient: 'slack:U7' });
    stream.append('First words ');
    await until(() => methods().includes('chat.postMessage'));
    await stream.stop({ text: 'First words, then the rest.' });
    expect(methods()).toEqual(['chat.postMessage', 'chat.update']);
  });

  it("shows the final text at once with chat.appendStream when chat.stopStream's Tier 2 window is spent, and stops at its turn with the buttons", async () => {
    vi.useFakeTimers();
    try {
      const { client, calls, methods } = recordingClient();
      const { surface, caller } = surfaceOn(client);
      const stream = surface.startStream!({ thread: THREAD, recipient: 'slack:U7' });
      stream.append('First words ');
      await vi.advanceTimersByTimeAsync(50);
      expect(methods()).toEqual(['chat.startStream']);
      // Streams that began in different minutes end together: the stops of this minute are spent.
      caller.budget.pause('chat.stopStream', 20_000);
      let done = false;
      const stopped = stream.stop({ text: 'First words and then the rest.', buttons: [{ actionId: 'b', label: 'Ask Worf', style: 'primary', value: 'v' }] });
      void stopped.then(() => (done = true));
      await vi.advanceTimersByTimeAsync(50);
      expect(methods()).toEqual(['chat.startStream', 'chat.appendStream']);
      expect(calls.at(-1)!.args).toMatchObject({ markdown_text: 'and then the rest.' });
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(20_000);
      await stopped;
      expect(methods()).toEqual(['chat.startStream', 'chat.appendStream', 'chat.stopStream']);
      const stop = calls.find((call) => call.method === 'chat.stopStream')!;
      expect(stop.args.markdown_text).toBeUndefined();
      expect(JSON.stringify(stop.args.blocks)).toContain('Ask Worf');
    } finally {
      vi.useRealTimers();
    }
  });
});
