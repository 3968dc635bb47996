/** A mention on Discord, end to end: a thread from the message, streamed under the character's name through the webhook; follow-ups; hand-over; re-deliveries; fallback; long replies. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANA, BEN, fencesBalanced, menusOf, sharedDiscordHarness } from './discord-harness.js';

/** discord.js's default message cache per channel (`Options.DefaultMakeCacheSettings`). */
const DISCORD_JS_MESSAGE_CACHE_SIZE = 200;

describe('Discord mentions', () => {
  const bot = sharedDiscordHarness();
  it('starts a thread from the message and streams the reply under the character name through the webhook', async () => {
    const harness = bot();
    const { model } = harness;
    const reply = 'The tests fail because the fixture path moved. '.repeat(6).trim();
    model.enqueue({ text: reply, chunkSize: 12, delayMsBetweenChunks: 80 });
    const question = harness.mention({ content: 'geordi why does npm test fail?' });
    const answer = await harness.waitForReply(question.id, reply);
    // The thread was started from the message: same id, under the channel, named after the character.
    const thread = harness.threads().find((candidate) => candidate.id === question.id);
    expect(thread?.parent_id).toBe(harness.channelId);
    expect(thread?.name).toMatch(/^Geordi · why does npm test fail\?/);
    // The shared webhook, and Geordi's own carrying its picture (no TSUKA_PUBLIC_URL here): the name without the emoji.
    expect(harness.webhooks().map((hook) => hook.name)).toEqual(['TSUKA', 'TSUKA:geordi']);
    expect(answer.webhookId).toBe(harness.webhooks()[1]!.id);
    expect(answer.username).toBe('Geordi');
    expect(harness.botReplies(question.id)).toHaveLength(1);
    // Streamed: a placeholder first, then edits, the last one holding the whole reply.
    expect(answer.revisions.length).toBeGreaterThanOrEqual(3);
    expect(answer.revisions[0]!.content).toMatch(/💭/);
    expect(answer.revisions.at(-1)!.content).toContain(reply);
    const request = model.requests[0]!.body as { messages: { role: string; content: string }[] };
    expect(request.messages.at(-1)!.content).toBe('why does npm test fail?');
    expect(request.messages[0]!.content).toMatch(/Geordi/);
    // Webhook posts went into the thread.
    expect(harness.calls().some((call) => call.method === 'POST' && call.path.startsWith('/webhooks/') && call.query['thread_id'] === question.id)).toBe(true);
  });

  it('continues the session on a follow-up in the thread without a mention', async () => {
    const harness = bot();
    const { discord, model } = harness;
    model.enqueue({ text: 'First answer.' });
    const question = harness.mention({ content: 'spock what is BM25?' });
    await harness.waitForReply(question.id, 'First answer.');
    model.enqueue({ text: 'Second answer.' });
    discord.postUserMessage({ channelId: question.id, userId: ANA, content: 'and how does it rank?' });
    await harness.waitForReply(question.id, 'Second answer.');
    expect(harness.botReplies(question.id).every((message) => message.username.endsWith('Spock'))).toBe(true);
    const contents = (model.requests[1]!.body as { messages: { content: string }[] }).messages.map((message) => message.content);
    expect(contents).toContain('what is BM25?');
    expect(contents).toContain('First answer.');
    expect(contents.at(-1)).toBe('and how does it rank?');
    expect(harness.threads()).toHaveLength(1);
  });

  it('hands over to another character mentioned in the thread, who answers under its own name and sees the history', async () => {
    const harness = bot();
    const { model } = harness;
    model.enqueue({ text: 'Geordi here.' });
    const question = harness.mention({ content: 'geordi check the api' });
    await harness.waitForReply(question.id, 'Geordi here.');
    model.enqueue({ text: 'Worf reviewing.' });
    harness.mention({ channelId: question.id, content: 'worf is this safe?' });
    const handedOver = await harness.waitForReply(question.id, 'Worf reviewing.');
    expect(handedOver.webhookId).toBe(harness.webhooks().find((hook) => hook.name === 'TSUKA:worf')!.id);
    expect(handedOver.username).toBe('Worf');
    expect(harness.botReplies(question.id).map((message) => message.username.split(' ').at(-1))).toEqual(['Geordi', 'Worf']);
    const request = model.requests[1]!.body as { messages: { role: string; content: string }[] };
    expect(request.messages[0]!.content).toMatch(/Worf/);
    expect(request.messages.map((message) => message.content)).toContain('Geordi here.');
    expect(request.messages.at(-1)!.content).toBe('is this safe?');
    expect(harness.threads()).toHaveLength(1);
  });

  it('a finished reply carries the second-opinion selects; picking "Ask Worf" gets Worf\'s answer in the thread with the request, reply and tool results', async () => {
    const harness = bot();
    const { discord, model } = harness;
    await mkdir(harness.workspace, { recursive: true });
    await writeFile(path.join(harness.workspace, 'limits.txt'), 'max_connections=64\n');
    model.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'limits.txt' } }] });
    model.enqueue({ text: 'The limit is 64 connections.' });
    const question = harness.mention({ content: 'geordi what is the connection limit?' });
    const reply = await harness.waitForReply(question.id, 'The limit is 64 connections.');
    const [ask, rerun] = menusOf(reply);
    expect(ask!.custom_id).toMatch(/^tsuka_second_ask:/);
    expect(rerun!.custom_id).toMatch(/^tsuka_second_rerun:/);
    expect(ask!.options.map((option) => option.label)).toContain('Ask Worf');
    const before = model.requests.length;
    model.enqueue({ text: 'Worf: 64 is too many for this host.' });
    await discord.chooseOption({ messageId: reply.id, channelId: question.id, customId: ask!.custom_id, value: 'ask:worf', userId: BEN });
    const second = await harness.waitForReply(question.id, 'Worf: 64 is too many');
    expect(second.username).toBe('Worf');
    const asked = (model.requests[before]!.body as { messages: { role: string; content: string }[] }).messages.at(-1)!.content;
    expect(asked).toContain('what is the connection limit?');
    expect(asked).toContain('The limit is 64 connections.');
    expect(asked).toContain('max_connections=64');
  });

  it('answers a MESSAGE_CREATE the gateway delivers twice only once, also when discord.js no longer caches the message', async () => {
    const harness = bot();
    const { discord, model } = harness;
    model.enqueue({ text: 'Only once.' });
    model.enqueue({ text: 'TWICE — this must not be posted.' });
    const question = harness.mention({ content: 'hello' });
    // The same message again, shaped as the gateway sends it (guild and member included).
    const redeliver = () =>
      discord.dispatch('MESSAGE_CREATE', {
        ...question,
        guild_id: discord.guildId,
        member: { roles: [], joined_at: question.timestamp, deaf: false, mute: false, flags: 0 },
      });
    redeliver();
    await harness.waitForReply(question.id, 'Only once.');
    // discord.js drops a MESSAGE_CREATE for a message still in its per-channel cache (200 by default);
    // once chatter has pushed the question out, only TSUKA's own de-duplication stands in the way.
    for (let index = 0; index < DISCORD_JS_MESSAGE_CACHE_SIZE; index++)
      discord.postUserMessage({ channelId: harness.channelId, userId: ANA, content: `chatter ${index}` });
    redeliver();
    // A later mention, answered, shows the bot has handled everything dispatched before it.
    const later = harness.mention({ content: 'second question' });
    await discord.waitFor(() => harness.botReplies(later.id).find((message) => !message.content.includes('💭')));
    expect(harness.botReplies(question.id)).toHaveLength(1);
    expect(harness.botReplies(question.id)[0]!.content).not.toContain('TWICE');
    expect(model.requests).toHaveLength(2);
    expect((model.requests[1]!.body as { messages: { content: string }[] }).messages.at(-1)!.content).toBe('second question');
    expect(harness.threads().map((thread) => thread.id)).toEqual([question.id, later.id]);
  });

  it('ignores other bots, webhooks, and chatter in threads it is not part of', async () => {
    const harness = bot();
    const { discord, model } = harness;
    discord.postUserMessage({ channelId: harness.channelId, userId: '1250000000000000777', content: 'geordi hi', mentionsBot: true, authorIsBot: true });
    const unrelated = discord.postUserMessage({ channelId: harness.channelId, userId: ANA, content: 'not for the bot' });
    model.enqueue({ text: 'Hello human.' });
    const question = harness.mention({ content: 'hi' });
    await harness.waitForReply(question.id, 'Hello human.');
    expect(model.requests).toHaveLength(1);
    expect(harness.threads().map((thread) => thread.id)).toEqual([question.id]);
    expect(harness.botReplies(unrelated.id)).toHaveLength(0);
  });

  it('splits a long reply with code blocks into parts of at most 2,000 characters without breaking a fence, and never sends more', async () => {
    const harness = bot();
    const { model } = harness;
    const block = (n: number) => `\`\`\`python\n${Array.from({ length: 40 }, (_, i) => `print("block ${n} line ${i}")`).join('\n')}\n\`\`\``;
    const text = Array.from({ length: 6 }, (_, n) => `Step ${n}: run this.\n\n${block(n)}`).join('\n\n');
    expect(text.length).toBeGreaterThan(5000);
    model.enqueue({ text, chunkSize: 1500 });
    const question = harness.mention({ content: 'geordi write the scripts' });
    await harness.waitForReply(question.id, 'print("block 5 line 39")', 15_000);
    const parts = harness.botReplies(question.id);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(part.content.length).toBeLessThanOrEqual(2000);
      expect(fencesBalanced(part.content)).toBe(true);
      expect(part.username).toBe('Geordi');
    }
    const lines =
      parts
        .map((part) => part.content)
        .join('\n')
        .match(/print\("block \d+ line \d+"\)/g) ?? [];
    expect(new Set(lines).size).toBe(6 * 40);
    // No request was refused for its length (Discord's 50035).
    expect(harness.calls().filter((call) => call.status === 400)).toEqual([]);
  });
});

describe('Discord mentions without Manage Webhooks', () => {
  const bot = sharedDiscordHarness({ emulator: { permissions: { manageWebhooks: false } } });

  it('falls back to the bot with the name in bold when Manage Webhooks is missing', async () => {
    const harness = bot();
    const { discord, model } = harness;
    model.enqueue({ text: 'Still delivered.' });
    const question = harness.mention({ content: 'geordi hello' });
    const answer = await harness.waitForReply(question.id, 'Still delivered.');
    expect(answer.webhookId).toBeUndefined();
    expect(answer.authorId).toBe(discord.botUserId);
    expect(answer.content).toMatch(/^🔧 \*\*Geordi\*\*: Still delivered\./);
    expect(harness.webhooks()).toHaveLength(0);
  });

  it("never sends a message over 2,000 characters, even with the fallback's name prefix (no 50035 from Discord)", async () => {
    const harness = bot();
    const { discord, model } = harness;
    const text = `${'word '.repeat(400)}`.trim().padEnd(2001, 'x');
    expect(text).toHaveLength(2001);
    model.enqueue({ text, chunkSize: 2001 });
    const question = harness.mention({ content: 'geordi one long paragraph' });
    await discord.waitFor(
      () =>
        harness.botReplies(question.id).length >= 2 &&
        harness.botReplies(question.id).every((message) => !message.content.includes('💭')) &&
        harness!
          .botReplies(question.id)
          .map((message) => message.content)
          .join('')
          .endsWith('xx'),
    );
    const parts = harness.botReplies(question.id);
    for (const part of parts) {
      expect(part.content.length).toBeLessThanOrEqual(2000);
      expect(part.content.startsWith('🔧 **Geordi**: ')).toBe(true);
    }
    expect(harness.calls().filter((call) => call.status === 400 || /Invalid Form Body|50035/.test(call.error ?? ''))).toEqual([]);
  });
});
