import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlackEmulator, type SlackEmulator } from './slack-emulator.js';

let emulator: SlackEmulator;

beforeEach(async () => {
  emulator = await startSlackEmulator();
});

afterEach(async () => {
  await emulator.close();
});

async function callApi(method: string, body: Record<string, unknown>, token = emulator.botToken) {
  const response = await fetch(`${emulator.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const section = (length: number) => ({ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(length) } });

describe('Web API: tokens and methods', () => {
  it('answers invalid_auth, not_authed, not_allowed_token_type and unknown_method as Slack does', async () => {
    expect((await callApi('auth.test', {}, 'xoxb-wrong')).body).toEqual({ ok: false, error: 'invalid_auth' });
    const anonymous = await fetch(`${emulator.apiUrl}auth.test`, { method: 'POST' });
    expect(await anonymous.json()).toEqual({ ok: false, error: 'not_authed' });
    expect((await callApi('apps.connections.open', {})).body.error).toBe('not_allowed_token_type');
    expect((await callApi('chat.postMessage', { channel: 'C1', text: 'x' }, emulator.appToken)).body.error).toBe('not_allowed_token_type');
    expect((await callApi('chat.frobnicate', {})).body).toEqual({ ok: false, error: 'unknown_method' });
    const socket = await callApi('apps.connections.open', {}, emulator.appToken);
    expect(socket.body.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/socket\?ticket=/);
  });

  it('accepts form-urlencoded bodies with blocks as a JSON string and the token as a field', async () => {
    const form = new URLSearchParams({
      token: emulator.botToken,
      channel: 'C1',
      text: 'fallback',
      blocks: JSON.stringify([section(10)]),
    });
    const response = await fetch(`${emulator.apiUrl}chat.postMessage`, { method: 'POST', body: form });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, channel: 'C1' });
    expect(String(body.ts)).toMatch(/^\d{10}\.\d{6}$/);
    expect(emulator.messages('C1')[0]?.blocks).toEqual([section(10)]);
    expect(response.headers.get('x-oauth-scopes')).toContain('chat:write');
  });
});

describe('Web API: rate limits', () => {
  it('lets a burst of chat.postMessage through per channel, then answers 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      statuses.push((await callApi('chat.postMessage', { channel: 'C1', text: `part ${index}` })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const refused = await callApi('chat.postMessage', { channel: 'C1', text: 'again' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ ok: false, error: 'ratelimited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(Number(refused.headers.get('retry-after')))).toBe(true);
    expect(emulator.rateLimited).toHaveLength(2);
    expect(emulator.rateLimited[0]).toMatchObject({ method: 'chat.postMessage', channel: 'C1' });
    expect(emulator.messages('C1')).toHaveLength(4);
    // Another channel has its own bucket.
    expect((await callApi('chat.postMessage', { channel: 'C2', text: 'hello' })).status).toBe(200);
  });

  it('limits chat.update per app per minute, and can be changed or disabled at runtime', async () => {
    emulator.setRateLimits({ updatePerMinute: 2 });
    const posted = await callApi('chat.postMessage', { channel: 'C1', text: 'v0' });
    const update = (text: string) => callApi('chat.update', { channel: 'C1', ts: posted.body.ts, text });
    expect((await update('v1')).status).toBe(200);
    expect((await update('v2')).status).toBe(200);
    const refused = await update('v3');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1);
    emulator.setRateLimits({ enabled: false });
    expect((await update('v4')).status).toBe(200);
    expect(emulator.messages('C1')[0]).toMatchObject({ text: 'v4', edits: 3, history: ['v0', 'v1', 'v2', 'v4'] });
  });
});

describe('Web API: message limits', () => {
  it('fails total block text above 13,200 characters with msg_blocks_too_long', async () => {
    const result = await callApi('chat.postMessage', { channel: 'C1', blocks: Array.from({ length: 5 }, () => section(2_900)) });
    expect(result.body).toMatchObject({ ok: false, error: 'msg_blocks_too_long' });
    expect(emulator.messages('C1')).toHaveLength(0);
  });

  it('fails a section over 3,000 characters, more than 50 blocks and an over-long button with invalid_blocks', async () => {
    expect((await callApi('chat.postMessage', { channel: 'C1', blocks: [section(3_001)] })).body.error).toBe('invalid_blocks');
    expect((await callApi('chat.postMessage', { channel: 'C2', blocks: Array.from({ length: 51 }, () => section(1)) })).body.error).toBe('invalid_blocks');
    const button = { type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b'.repeat(76) } };
    const result = await callApi('chat.postMessage', { channel: 'C3', blocks: [{ type: 'actions', elements: [button] }] });
    expect(result.body).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(String((result.body.errors as string[])[0])).toContain('/blocks/0/elements/0/text/text');
  });

  it('answers no_text without content, truncates text over 40,000 characters, and applies the rules to chat.update', async () => {
    expect((await callApi('chat.postMessage', { channel: 'C1' })).body.error).toBe('no_text');
    const long = await callApi('chat.postMessage', { channel: 'C1', text: 'y'.repeat(40_500) });
    expect(long.body.ok).toBe(true);
    expect(emulator.messages('C1')[0]).toMatchObject({ truncated: true });
    expect(emulator.messages('C1')[0]?.text).toHaveLength(40_000);
    const tooLong = await callApi('chat.update', { channel: 'C1', ts: long.body.ts, text: 'z', blocks: [section(3_001)] });
    expect(tooLong.body.error).toBe('invalid_blocks');
    expect((await callApi('chat.update', { channel: 'C1', ts: '1.000001', text: 'z' })).body.error).toBe('message_not_found');
  });
});

describe('Web API: recorded state', () => {
  it('records ephemerals, statuses, reactions, deletions and serves conversations.replies from the store', async () => {
    const root = await callApi('chat.postMessage', { channel: 'C1', text: 'root' });
    const reply = await callApi('chat.postMessage', { channel: 'C1', text: 'reply', thread_ts: root.body.ts });
    await callApi('chat.postEphemeral', { channel: 'C1', user: 'U0ANA', text: 'only you', thread_ts: root.body.ts });
    await callApi('assistant.threads.setStatus', { channel_id: 'C1', thread_ts: root.body.ts, status: 'thinking…' });
    expect((await callApi('reactions.add', { channel: 'C1', timestamp: root.body.ts, name: 'eyes' })).body.ok).toBe(true);
    expect((await callApi('reactions.add', { channel: 'C1', timestamp: root.body.ts, name: 'eyes' })).body.error).toBe('already_reacted');

    const replies = await callApi('conversations.replies', { channel: 'C1', ts: root.body.ts });
    expect(replies.body.messages).toMatchObject([
      { ts: root.body.ts, text: 'root', reply_count: 1, reactions: [{ name: 'eyes' }] },
      { ts: reply.body.ts, thread_ts: root.body.ts, text: 'reply' },
    ]);
    expect(emulator.ephemerals).toMatchObject([{ channel: 'C1', user: 'U0ANA', text: 'only you', thread_ts: root.body.ts }]);
    expect(emulator.statuses).toMatchObject([{ channel: 'C1', thread_ts: root.body.ts, status: 'thinking…' }]);

    expect((await callApi('chat.delete', { channel: 'C1', ts: reply.body.ts })).body.ok).toBe(true);
    expect(emulator.thread('C1', String(root.body.ts)).map((m) => m.text)).toEqual(['root']);
  });

  it('rejects waitFor on timeout with the last calls in the message', async () => {
    await callApi('chat.postMessage', { channel: 'C1', text: 'not what you wait for' });
    await expect(emulator.waitFor((e) => e.messages('C1').some((m) => m.text === 'never'), { timeoutMs: 50, description: 'the word never' })).rejects.toThrow(
      /the word never[\s\S]*chat\.postMessage .*not what you wait for/,
    );
  });

  it('resolves waitFor on the call that makes the predicate true', async () => {
    const waiting = emulator.waitFor((e) => e.botMessages('C9').length === 1);
    await callApi('chat.postMessage', { channel: 'C9', text: 'now' });
    await expect(waiting).resolves.toBeUndefined();
  });
});

describe('Web API: the assistant surface (issue 24)', () => {
  it('checks assistant.threads.setTitle and setSuggestedPrompts as documented, and records what they set', async () => {
    const root = await callApi('chat.postMessage', { channel: 'D1', text: 'New chat' });
    const thread = String(root.body.ts);
    const prompts = [{ title: 'Ask Geordi', message: '@geordi what can you do?' }];
    expect((await callApi('assistant.threads.setTitle', { channel_id: 'D1', thread_ts: thread, title: 'Release plan' })).body).toEqual({ ok: true });
    expect((await callApi('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: thread, title: 'Ask a character', prompts })).body).toEqual({
      ok: true,
    });
    expect(emulator.assistantTitles).toEqual([{ channel: 'D1', thread_ts: thread, title: 'Release plan' }]);
    expect(emulator.suggestedPrompts).toEqual([{ channel: 'D1', thread_ts: thread, title: 'Ask a character', prompts }]);
    // Form-encoded, `prompts` is a JSON string.
    const form = new URLSearchParams({ token: emulator.botToken, channel_id: 'D1', thread_ts: thread, prompts: JSON.stringify(prompts) });
    expect(await (await fetch(`${emulator.apiUrl}assistant.threads.setSuggestedPrompts`, { method: 'POST', body: form })).json()).toEqual({ ok: true });

    const error = async (method: string, body: Record<string, unknown>) => (await callApi(method, body)).body.error;
    expect(await error('assistant.threads.setTitle', { channel_id: 'D1', thread_ts: thread })).toBe('invalid_arguments');
    expect(await error('assistant.threads.setTitle', { channel_id: 'D1', thread_ts: thread, title: '  ' })).toBe('invalid_arguments');
    expect(await error('assistant.threads.setTitle', { channel_id: 'C1', thread_ts: thread, title: 'x' })).toBe('channel_not_found');
    expect(await error('assistant.threads.setTitle', { channel_id: 'D1', thread_ts: '1.000001', title: 'x' })).toBe('invalid_thread_ts');
    expect(await error('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: thread, prompts: [] })).toBe('invalid_arguments');
    expect(await error('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: thread, prompts: Array(5).fill(prompts[0]) })).toBe(
      'invalid_arguments',
    );
    expect(await error('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: thread, prompts: [{ title: 'Ask Geordi' }] })).toBe(
      'invalid_arguments',
    );
    expect(await error('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: '1.000001', prompts })).toBe('invalid_thread_ts');
    emulator.setScopes(['chat:write']);
    expect((await callApi('assistant.threads.setTitle', { channel_id: 'D1', thread_ts: thread, title: 'x' })).body).toMatchObject({
      ok: false,
      error: 'missing_scope',
      needed: 'assistant:write',
    });
  });
});

describe('Web API: the Agent messaging experience (issue 37)', () => {
  it('an agent-view app gets its prompts without a thread_ts; with one Slack answers ok and shows nothing', async () => {
    emulator.setMessagingView('agent');
    const root = await callApi('chat.postMessage', { channel: 'D1', text: 'hello' });
    const prompts = [{ title: 'Ask Geordi', message: '@geordi what can you do?' }];
    expect((await callApi('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', thread_ts: String(root.body.ts), prompts })).body).toEqual({ ok: true });
    expect(emulator.suggestedPrompts).toEqual([]);
    expect(emulator.ignoredSuggestedPrompts).toEqual([{ channel: 'D1', thread_ts: String(root.body.ts), prompts }]);
    expect((await callApi('assistant.threads.setSuggestedPrompts', { channel_id: 'D1', prompts })).body).toEqual({ ok: true });
    expect(emulator.suggestedPrompts).toEqual([{ channel: 'D1', prompts }]);
    // The assistant view's thread-opening event does not exist there.
    await expect(emulator.startAssistantThread({ userId: 'U1', channelId: 'D1' })).rejects.toThrow(/agent-view app gets no assistant_thread_started/);
  });

  it('app_context_changed reaches only an agent-view app, with its entities as Slack sends them', async () => {
    await expect(emulator.changeAppContext({ userId: 'U1', channelId: 'D1', entities: [] })).rejects.toThrow(/only an app whose manifest enables agent_view/);
  });
});

describe('Web API: state a test sharing the emulator starts from', () => {
  it('creates channels no one used yet: distinct ids, public, the bot and U1…U3 members', async () => {
    const first = emulator.createChannel();
    const second = emulator.createChannel();
    expect(first).not.toBe(second);
    expect(first).toMatch(/^C[A-Z0-9]+$/);
    const info = await callApi('conversations.info', { channel: first, include_num_members: true });
    expect(info.body.channel).toMatchObject({ id: first, is_channel: true, is_private: false, is_member: true, num_members: 4 });
    expect((await callApi('conversations.members', { channel: second })).body.members).toEqual([emulator.botUserId, 'U1', 'U2', 'U3']);
    const privateOne = emulator.createChannel({ isPrivate: true, members: [emulator.botUserId, 'U1'] });
    expect((await callApi('conversations.info', { channel: privateOne })).body.channel).toMatchObject({ is_private: true });
  });

  it('ends open fault windows on clearFaults, keeping the record of the calls they answered', async () => {
    emulator.injectFaults({ methods: ['chat.postMessage'], status: 500, durationMs: 120_000 });
    const channel = emulator.createChannel();
    expect((await callApi('chat.postMessage', { channel, text: 'during' })).status).toBe(500);
    emulator.clearFaults();
    const after = await callApi('chat.postMessage', { channel, text: 'after' });
    expect(after.status).toBe(200);
    expect(after.body.ok).toBe(true);
    expect(emulator.faulted.map((call) => [call.method, call.status])).toEqual([['chat.postMessage', 500]]);
  });

  it('answers only `times` calls of a window, then lets the rest through while it lasts', async () => {
    emulator.injectFaults({ methods: ['chat.postMessage'], status: 429, durationMs: 120_000, retryAfterSeconds: 1, times: 1 });
    const channel = emulator.createChannel();
    const first = await callApi('chat.postMessage', { channel, text: 'first' });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('1');
    expect((await callApi('chat.postMessage', { channel, text: 'second' })).status).toBe(200);
    expect(emulator.faulted).toHaveLength(1);
  });
});
