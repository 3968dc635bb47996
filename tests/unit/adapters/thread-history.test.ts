/** Thread history on every platform (issue 23): never this bot's own messages, never another channel's; earlier files as downloadable files. */
import type { REST } from 'discord.js';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { createDiscordThreadHistory } from '../../../src/adapters/discord/thread-history.js';
import { messageRef as discordMessage, threadRef } from '../../../src/adapters/discord/ids.js';
import { createSlackThreadHistory } from '../../../src/adapters/slack/thread-history.js';
import { messageRef as slackMessage } from '../../../src/adapters/slack/ids.js';
import type { SlackCaller } from '../../../src/adapters/slack/call-budget.js';
import type { RequestFields } from '../../emulators/slack/http-body.js';
import { formatTs, type StoredMessage } from '../../emulators/slack/message-store.js';
import { repliesPage } from '../../emulators/slack/thread-replies.js';
import { BOT_AUTHOR, USER_AUTHOR } from '../../../src/adapters/playground/cards.js';
import { messageRef as playgroundMessage } from '../../../src/adapters/playground/ids.js';
import { createPlaygroundState } from '../../../src/adapters/playground/state.js';
import { createPlaygroundSurface } from '../../../src/adapters/playground/surface.js';

const BOT = '900';
const APP = '901';
const at = (id: number) => new Date(1_700_000_000_000 + id).toISOString();

/** A Discord REST stand-in over a few messages, recording every route read. */
function discordRest(messages: Record<string, { channel: string; body: Record<string, unknown> }>) {
  const reads: string[] = [];
  const rest = {
    get: async (route: string) => {
      reads.push(route);
      const single = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(route);
      if (single) {
        const found = messages[single[2]!];
        if (!found || found.channel !== single[1]) throw Object.assign(new Error('Unknown Message'), { code: 10008, status: 404 });
        return { id: single[2], channel_id: found.channel, ...found.body };
      }
      const channel = /^\/channels\/(\d+)\/messages$/.exec(route)?.[1];
      return Object.entries(messages)
        .filter(([, entry]) => entry.channel === channel)
        .map(([id, entry]) => ({ id, channel_id: entry.channel, ...entry.body }))
        .reverse();
    },
  } as unknown as REST;
  return { rest, reads };
}

describe('Discord thread history', () => {
  it('reads the thread and its starter, leaves out this bot and its webhooks, marks other bots', async () => {
    const { rest } = discordRest({
      '10': { channel: '1', body: { content: 'starter', timestamp: at(10), author: { id: '5', username: 'ana' } } },
      '11': { channel: '10', body: { content: 'mine', timestamp: at(11), author: { id: BOT, username: 'TSUKA', bot: true } } },
      '12': {
        channel: '10',
        body: { content: 'as a character', timestamp: at(12), webhook_id: '77', application_id: APP, author: { id: '77', username: 'Geordi', bot: true } },
      },
      '13': { channel: '10', body: { content: 'Build failed', timestamp: at(13), author: { id: '8', username: 'ci', bot: true } } },
    });
    const history = createDiscordThreadHistory(
      () => rest,
      () => ({ userId: BOT, applicationId: APP }),
    );
    const messages = await history({
      thread: threadRef('G', '1', '10'),
      message: discordMessage({ guild: 'G', parent: '1', channel: '10', message: '20' }),
      limit: 50,
    });
    expect(messages.map((message) => [message.userName, message.text, message.fromOtherBot ?? false])).toEqual([
      ['ana', 'starter', false],
      ['ci', 'Build failed', true],
    ]);
  });

  it('gives an earlier message’s attachments as files to download (their CDN links)', async () => {
    const { rest } = discordRest({
      '10': { channel: '1', body: { content: 'starter', timestamp: at(10), author: { id: '5', username: 'ana' } } },
      '11': {
        channel: '10',
        body: {
          content: 'log here',
          timestamp: at(11),
          author: { id: '5', username: 'ana' },
          attachments: [{ filename: 'app.log', url: 'https://cdn.discordapp.com/attachments/10/11/app.log?ex=1', size: 42, content_type: 'text/plain' }],
        },
      },
    });
    const history = createDiscordThreadHistory(
      () => rest,
      () => ({ userId: BOT, applicationId: APP }),
    );
    const messages = await history({
      thread: threadRef('G', '1', '10'),
      message: discordMessage({ guild: 'G', parent: '1', channel: '10', message: '20' }),
      limit: 50,
    });
    expect(messages.at(-1)!.files).toEqual([
      { name: 'app.log', source: 'https://cdn.discordapp.com/attachments/10/11/app.log?ex=1', size: 42, mediaType: 'text/plain' },
    ]);
  });

  it('does not follow a reply into another channel, nor read a thread of another channel', async () => {
    const { rest, reads } = discordRest({
      '30': { channel: '2', body: { content: 'secret elsewhere', timestamp: at(30), author: { id: '5', username: 'ana' } } },
      '31': {
        channel: '1',
        body: { content: 'forwarded', timestamp: at(31), author: { id: '5', username: 'ana' }, message_reference: { message_id: '30', channel_id: '2' } },
      },
    });
    const history = createDiscordThreadHistory(
      () => rest,
      () => ({ userId: BOT, applicationId: APP }),
    );
    const message = discordMessage({ guild: 'G', parent: '1', channel: '1', message: '40' });
    const chain = await history({ message, replyTo: discordMessage({ guild: 'G', parent: '1', channel: '1', message: '31' }), limit: 50 });
    expect(chain.map((entry) => entry.text)).toEqual(['forwarded']);
    expect(await history({ message, replyTo: discordMessage({ guild: 'G', parent: '2', channel: '2', message: '30' }), limit: 50 })).toEqual([]);
    expect(await history({ message, thread: threadRef('G', '2', '30'), limit: 50 })).toEqual([]);
    expect(reads.some((route) => route.startsWith('/channels/2/'))).toBe(false);
  });
});

describe('Slack thread history', () => {
  const replies = [
    { ts: '100.000001', user: 'U1', text: 'parent' },
    { ts: '100.000002', user: 'UBOT', bot_id: 'BBOT', text: 'my own reply' },
    {
      ts: '100.000003',
      bot_id: 'BCI',
      subtype: 'bot_message',
      username: 'ci',
      text: 'Build failed',
      files: [
        { id: 'F1', name: 'build.log', mimetype: 'text/plain', size: 9, url_private_download: 'https://files.slack.com/files-pri/T-F1/build.log?download=1' },
      ],
    },
    { ts: '100.000009', user: 'U2', text: 'the mention itself' },
  ];
  const calls: string[] = [];
  const client = {
    conversations: {
      replies: async (options: { channel: string }) => {
        calls.push(options.channel);
        return { ok: true, messages: replies, has_more: false };
      },
    },
  } as unknown as WebClient;
  const caller = ((request: { call: () => Promise<unknown> }) => request.call()) as unknown as SlackCaller;
  const history = createSlackThreadHistory(client, caller, () => ({ userId: 'UBOT', botId: 'BBOT' }));

  it('keeps what came before the mention, without this bot, other bots marked', async () => {
    const messages = await history({ thread: slackMessage('T', 'C1', '100.000001'), message: slackMessage('T', 'C1', '100.000009'), limit: 50 });
    expect(messages.map((message) => [message.text, message.fromOtherBot ?? false])).toEqual([
      ['parent', false],
      ['Build failed', true],
    ]);
    expect(messages[1]!.files).toEqual([
      { name: 'build.log', mediaType: 'text/plain', size: 9, source: 'https://files.slack.com/files-pri/T-F1/build.log?download=1' },
    ]);
  });

  it('never reads a thread of another channel than the message’s', async () => {
    calls.length = 0;
    expect(await history({ thread: slackMessage('T', 'C2', '100.000001'), message: slackMessage('T', 'C1', '100.000009'), limit: 50 })).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('Slack thread history of a long thread (issue 42)', () => {
  /** A thread as the emulator stores it, paged by its conversations.replies (oldest first, windows, cursors). */
  function threadClient(thread: StoredMessage[]) {
    const calls: Record<string, unknown>[] = [];
    const client = {
      conversations: {
        replies: async (fields: Record<string, unknown>) => {
          calls.push(fields);
          const page = repliesPage(thread, fields as RequestFields);
          if ('error' in page) throw new Error(page.error);
          return { ok: true, messages: page.messages, has_more: page.hasMore, response_metadata: { next_cursor: page.nextCursor } };
        },
      },
    } as unknown as WebClient;
    const caller = ((request: { call: () => Promise<unknown> }) => request.call()) as unknown as SlackCaller;
    return { calls, history: createSlackThreadHistory(client, caller, () => ({ userId: 'UBOT', botId: 'BBOT' })) };
  }
  const stored = (micros: number, text: string, user = 'U1'): StoredMessage => ({
    channel: 'C1',
    ts: formatTs(micros),
    thread_ts: formatTs(PARENT),
    text,
    user,
    ...(user === 'UBOT' ? { bot_id: 'BBOT' } : {}),
    edits: 0,
    history: [],
    reactions: [],
    truncated: false,
  });
  const PARENT = 1_700_000_000_000_000;
  /** The parent and `count` replies at the given microseconds after it; the mention after them all. */
  function thread(offsets: number[], user: (position: number) => string = () => 'U1') {
    const messages = [
      stored(PARENT, 'parent'),
      ...offsets.map((offset, position) => stored(PARENT + offset, `r${String(position).padStart(5, '0')}`, user(position))),
    ];
    const mention = formatTs(PARENT + offsets.at(-1)! + 1_000);
    return { messages, ask: { thread: slackMessage('T', 'C1', formatTs(PARENT)), message: slackMessage('T', 'C1', mention), limit: 100 } };
  }
  const names = (count: number, from: number) => Array.from({ length: count }, (_, position) => `r${String(from + position).padStart(5, '0')}`);

  it('a 1,000-message thread: two calls, the newest 100 before the mention', async () => {
    const { messages, ask } = thread(Array.from({ length: 999 }, (_, position) => (position + 1) * 100));
    const { calls, history } = threadClient(messages);
    const found = await history(ask);
    expect(found.map((entry) => entry.text)).toEqual(names(100, 899));
    expect(calls.length).toBeLessThanOrEqual(2);
    expect(calls.every((call) => Number(call.limit) <= 200)).toBe(true);
  });

  it('a short thread is one call, the parent included', async () => {
    const { messages, ask } = thread(Array.from({ length: 30 }, (_, position) => (position + 1) * 100));
    const { calls, history } = threadClient(messages);
    const found = await history(ask);
    expect(found.map((entry) => entry.text)).toEqual(['parent', ...names(30, 0)]);
    expect(calls).toHaveLength(1);
  });

  it('a thread quiet for a week, then a burst of 5,000: a few calls, the newest 100', async () => {
    const week = 7 * 24 * 3_600 * 1_000_000;
    const offsets = [
      ...Array.from({ length: 250 }, (_, position) => (position + 1) * 1_000_000),
      ...Array.from({ length: 5_000 }, (_, position) => week + position * 50_000),
    ];
    const { messages, ask } = thread(offsets);
    const { calls, history } = threadClient(messages);
    const found = await history(ask);
    expect(found.map((entry) => entry.text)).toEqual(names(100, 5_150));
    expect(calls.length).toBeLessThanOrEqual(4);
  });

  it('leaves this bot’s own replies out and still gives 100, reading further back for them', async () => {
    const { messages, ask } = thread(
      Array.from({ length: 1_999 }, (_, position) => (position + 1) * 100),
      (position) => (position % 3 === 0 ? 'U2' : 'UBOT'),
    );
    const { calls, history } = threadClient(messages);
    const found = await history(ask);
    const expected = messages
      .filter((message) => message.user === 'U2')
      .slice(-100)
      .map((message) => message.text);
    expect(found.map((entry) => entry.text)).toEqual(expected);
    expect(calls.length).toBeLessThanOrEqual(4);
  });
});

describe('playground thread history', () => {
  function chat() {
    const state = createPlaygroundState();
    state.addChannel('ops');
    const surface = createPlaygroundSurface({ state, editIntervalMs: 10 });
    const say = (channel: string, text: string, thread?: string, attachments?: string[]) =>
      state.addMessage({ channel, author: USER_AUTHOR, text, ...(thread ? { thread } : {}), ...(attachments ? { attachments } : {}) });
    return { state, surface, say };
  }

  it('gives what the person wrote in the thread before the mention, oldest first, without the characters’ posts, with their files', async () => {
    const { state, surface, say } = chat();
    const root = say('general', 'the deploy failed');
    state.addMessage({ channel: 'general', thread: root.id, author: { name: 'Geordi', kind: 'character' }, text: 'a character answered' });
    state.addMessage({ channel: 'general', thread: root.id, author: BOT_AUTHOR, text: 'a bot notice' });
    const file = state.addFile({
      channel: 'general',
      thread: root.id,
      fileName: 'err.log',
      title: 'err.log',
      bytes: new TextEncoder().encode('boom'),
      mediaType: 'text/plain',
    });
    say('general', 'here is the log', root.id, [file.id]);
    const mention = say('general', '@data what went wrong?', root.id);
    say('general', 'written after the mention', root.id);
    say('general', 'another thread');

    const messages = await surface.threadHistory!({ thread: root.ref, message: mention.ref, limit: 50 });
    expect(messages.map((message) => [message.userName, message.text])).toEqual([
      ['you', 'the deploy failed'],
      ['you', 'here is the log'],
    ]);
    expect(messages[1]!.files).toEqual([{ name: 'err.log', mediaType: 'text/plain', size: 4, source: file.id }]);
    expect(messages[1]!.fileNames).toEqual(['err.log']);
    // The file is read back through the surface, as a message's own files are.
    expect(new TextDecoder().decode(await surface.downloadFile!(messages[1]!.files![0]!, { maxBytes: 100 }))).toBe('boom');
  });

  it('never reads a thread of another channel than the message’s, nor a thread the message is not in', async () => {
    const { surface, say } = chat();
    const elsewhere = say('ops', 'secret in #ops');
    const other = say('general', 'another thread');
    const root = say('general', 'this thread');
    const mention = say('general', '@data hi', root.id);
    expect(await surface.threadHistory!({ thread: elsewhere.ref, message: mention.ref, limit: 50 })).toEqual([]);
    expect(await surface.threadHistory!({ thread: playgroundMessage('ops', root.id), message: mention.ref, limit: 50 })).toEqual([]);
    expect(await surface.threadHistory!({ thread: other.ref, message: mention.ref, limit: 50 })).toEqual([]);
  });
});
