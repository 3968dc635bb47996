/** chat.startStream / appendStream / stopStream as the emulator answers them, refusals and quotas included. */
import { afterEach, describe, expect, it } from 'vitest';
import { startSlackEmulator, type SlackEmulator, type SlackEmulatorOptions } from './slack-emulator.js';
import { createRateLimiter } from './rate-limiter.js';

let emulator: SlackEmulator;

afterEach(async () => {
  await emulator.close();
});

async function callApi(method: string, body: Record<string, unknown>) {
  const response = await fetch(`${emulator.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emulator.botToken}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const start = (extra: Record<string, unknown> = {}) =>
  callApi('chat.startStream', {
    channel: 'C1',
    thread_ts: '1700000000.000100',
    markdown_text: 'Hello',
    recipient_user_id: 'U1',
    recipient_team_id: emulator.teamId,
    username: 'Geordi',
    icon_emoji: ':wrench:',
    ...extra,
  });

async function open(options: SlackEmulatorOptions = {}) {
  emulator = await startSlackEmulator(options);
}

describe('Slack streaming methods', () => {
  it('starts a stream in a thread under a name and icon, appends to it, and stops it with final markdown and buttons', async () => {
    await open();
    const started = await start();
    expect(started.body).toMatchObject({ ok: true, channel: 'C1' });
    const ts = started.body.ts as string;
    expect((await callApi('chat.appendStream', { channel: 'C1', ts, markdown_text: ' world' })).body.ok).toBe(true);
    const blocks = [{ type: 'actions', elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'Go' } }] }];
    expect((await callApi('chat.stopStream', { channel: 'C1', ts, markdown_text: '!', blocks })).body.ok).toBe(true);
    const [message] = emulator.botMessages('C1');
    expect(message).toMatchObject({
      text: 'Hello world!',
      thread_ts: '1700000000.000100',
      username: 'Geordi',
      icon_emoji: ':wrench:',
      stream: 'stopped',
      appends: 1,
      blocks,
      edits: 0,
    });
    expect(message!.history).toEqual(['Hello', 'Hello world', 'Hello world!']);
    expect((await callApi('chat.appendStream', { channel: 'C1', ts, markdown_text: 'late' })).body.error).toBe('message_not_in_streaming_state');
  });

  it('needs the recipient in channels, a thread, and chat:write.customize for a name', async () => {
    await open();
    expect((await start({ recipient_user_id: undefined })).body.error).toBe('invalid_arguments');
    expect((await start({ thread_ts: undefined })).body.error).toBe('invalid_arguments');
    expect((await start({ channel: 'D1', recipient_user_id: undefined, recipient_team_id: undefined })).body.ok).toBe(true);
    emulator.setScopes(['chat:write']);
    expect((await start()).body).toMatchObject({ ok: false, error: 'missing_scope', needed: 'chat:write.customize' });
  });

  it.each(['not_allowed', 'unknown_method', 'missing_scope'] as const)('can refuse every streaming method with %s', async (refusal) => {
    await open({ streamingRefusal: refusal });
    expect((await start()).body).toMatchObject({ ok: false, error: refusal });
    expect((await callApi('chat.appendStream', { channel: 'C1', ts: '1', markdown_text: 'x' })).body.error).toBe(refusal);
    emulator.setStreamingRefusal(undefined);
    expect((await start()).body.ok).toBe(true);
  });

  it('counts startStream against the channel posting budget, shared with chat.postMessage', async () => {
    await open({ rateLimits: { postMessageBurst: 2 } });
    expect((await start()).status).toBe(200);
    expect((await callApi('chat.postMessage', { channel: 'C1', text: 'x' })).status).toBe(200);
    const limited = await start();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await callApi('chat.postMessage', { channel: 'C2', text: 'other channel' })).status).toBe(200);
  });
});

describe('per-minute quotas of the streaming and acknowledgement methods', () => {
  it('allows appendStream 100 a minute (Tier 4), stopStream 20 (Tier 2), reactions.add and setStatus 50, per workspace', () => {
    let time = 1_000_000;
    const limiter = createRateLimiter({}, () => time);
    const burst = (method: string, count: number) =>
      Array.from({ length: count }, (_, index) => limiter.take(method, `C${index}`)).filter((decision) => decision.limited).length;
    expect(burst('chat.appendStream', 101)).toBe(1);
    expect(burst('chat.stopStream', 21)).toBe(1);
    expect(burst('reactions.add', 51)).toBe(1);
    expect(burst('assistant.threads.setStatus', 51)).toBe(1);
    expect(limiter.take('chat.appendStream', 'C1')).toEqual({ limited: true, retryAfterSeconds: 60 });
    time += 60_001;
    expect(limiter.take('chat.appendStream', 'C1').limited).toBe(false);
  });
});

describe('Slack streaming chunks', () => {
  it('takes text and task cards in order, and refuses chunks Slack would refuse', async () => {
    await open();
    const task = { type: 'task_update', id: 't1', title: 'read_file a.json', status: 'in_progress' };
    const started = await start({ markdown_text: undefined, chunks: [{ type: 'markdown_text', text: 'Looking. ' }, task], task_display_mode: 'timeline' });
    expect(started.body.ok).toBe(true);
    const ts = started.body.ts as string;
    const append = (chunks: unknown) => callApi('chat.appendStream', { channel: 'C1', ts, chunks });
    expect((await append([{ ...task, status: 'complete', output: '1 KB', sources: [{ type: 'url', url: 'https://a.test', text: 'a' }] }])).body.ok).toBe(true);
    // A source without text, an unknown status, an unknown chunk type, nothing at all: refused.
    expect((await append([{ ...task, sources: [{ type: 'url', url: 'https://a.test' }] }])).body).toMatchObject({ ok: false, error: 'invalid_chunks' });
    expect((await append([{ ...task, status: 'done' }])).body).toMatchObject({ ok: false, error: 'invalid_chunks' });
    expect((await append([{ type: 'image', url: 'https://a.test' }])).body).toMatchObject({ ok: false, error: 'invalid_chunks' });
    expect((await append([])).body).toMatchObject({ ok: false, error: 'invalid_chunks' });
    expect((await callApi('chat.appendStream', { channel: 'C1', ts, markdown_text: 'x', chunks: [task] })).body).toMatchObject({ ok: false });
    expect((await start({ task_display_mode: 'grid' })).body).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect((await append([{ type: 'markdown_text', text: 'Done.' }])).body.ok).toBe(true);
    const [message] = emulator.botMessages('C1');
    expect(message!.text).toBe('Looking. Done.');
    expect(message!.taskDisplayMode).toBe('timeline');
    expect(message!.chunks!.map((chunk) => `${chunk.type}${chunk.status ? `:${chunk.status}` : ''}`)).toEqual([
      'markdown_text',
      'task_update:in_progress',
      'task_update:complete',
      'markdown_text',
    ]);
  });

  it('a workspace without task cards refuses task and plan chunks, and still takes text', async () => {
    await open({ taskChunksRefusal: 'invalid_chunks' });
    expect((await start({ markdown_text: undefined, chunks: [{ type: 'plan_update', title: 'Plan' }] })).body).toMatchObject({
      ok: false,
      error: 'invalid_chunks',
    });
    expect((await start({ markdown_text: undefined, chunks: [{ type: 'markdown_text', text: 'Plain.' }] })).body.ok).toBe(true);
  });
});
