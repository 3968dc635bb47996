import { once } from 'node:events';
import { ChannelType, DiscordAPIError, Events, type Message, type TextChannel } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startClientFixture, type ClientFixture } from './discord-client-fixture.js';
import { DEFAULT_USER } from './discord-emulator.js';

describe('discord emulator with the real discord.js client', () => {
  let fixture: ClientFixture | undefined;
  afterEach(async () => {
    await fixture?.stop();
    fixture = undefined;
  });

  const generalChannel = (f: ClientFixture): TextChannel => {
    const channel = f.client.channels.cache.get(f.emulator.defaultChannelId);
    if (channel?.type !== ChannelType.GuildText) throw new Error('general channel missing from the cache');
    return channel;
  };

  it('logs in and is ready with the guild available, which only GUILD_CREATE provides', async () => {
    fixture = await startClientFixture();
    const { client, emulator } = fixture;
    const guild = client.guilds.cache.get(emulator.guildId);
    expect(guild?.available).toBe(true);
    expect(guild?.channels.cache.get(emulator.defaultChannelId)?.name).toBe('general');
    expect(guild?.members.me?.id).toBe(emulator.botUserId);
    expect(client.user.id).toBe(emulator.botUserId);
    expect(client.application.id).toBe(emulator.applicationId);
    const identify = emulator.gatewayLog.find((entry) => entry.kind === 'identify');
    expect(identify?.intents).toBe(client.options.intents.bitfield);
  });

  it('announces a channel made by createChannel (CHANNEL_CREATE), and delivers messages posted in it', async () => {
    fixture = await startClientFixture();
    const { client, emulator } = fixture;
    const created = once(client, Events.ChannelCreate);
    const id = emulator.createChannel('scenario-2');
    await created;
    const channel = client.channels.cache.get(id);
    expect(channel?.type).toBe(ChannelType.GuildText);
    expect((channel as TextChannel).name).toBe('scenario-2');
    expect((channel as TextChannel).guildId).toBe(emulator.guildId);
    const received = once(client, Events.MessageCreate) as Promise<[Message]>;
    emulator.postUserMessage({ channelId: id, userId: DEFAULT_USER.id, content: 'hello there', mentionsBot: true });
    const [message] = await received;
    expect(message.channelId).toBe(id);
    await (channel as TextChannel).send('answered');
    expect(emulator.messages(id).map((entry) => entry.content)).toEqual([`<@${emulator.botUserId}> hello there`, 'answered']);
  });

  it('delivers a mention of the bot as messageCreate with content and mentions', async () => {
    fixture = await startClientFixture();
    const { client, emulator } = fixture;
    const received = once(client, Events.MessageCreate) as Promise<[Message]>;
    emulator.postUserMessage({ channelId: emulator.defaultChannelId, userId: DEFAULT_USER.id, content: 'geordi why?', mentionsBot: true });
    const [message] = await received;
    expect(message.content).toBe(`<@${emulator.botUserId}> geordi why?`);
    expect(message.mentions.users.has(emulator.botUserId)).toBe(true);
    expect(message.author.id).toBe(DEFAULT_USER.id);
    expect(message.author.bot).toBe(false);
    expect(message.guildId).toBe(emulator.guildId);
    expect(message.member?.id).toBe(DEFAULT_USER.id);
  });

  it('starts a thread from a message whose id equals the message id, and posts into it', async () => {
    fixture = await startClientFixture();
    const { client, emulator } = fixture;
    const posted = emulator.postUserMessage({ channelId: emulator.defaultChannelId, userId: DEFAULT_USER.id, content: 'hi', mentionsBot: true });
    const message = await generalChannel(fixture).messages.fetch(posted.id);
    const thread = await message.startThread({ name: 'Geordi · hi' });
    expect(thread.id).toBe(posted.id);
    expect(thread.parentId).toBe(emulator.defaultChannelId);
    expect(emulator.threads().map((entry) => [entry.id, entry.name])).toEqual([[posted.id, 'Geordi · hi']]);
    await thread.send('working on it');
    expect(emulator.messages(thread.id).map((entry) => entry.content)).toEqual(['working on it']);
    expect(client.channels.cache.get(thread.id)?.isThread()).toBe(true);
    await expect(message.startThread({ name: 'again' })).rejects.toMatchObject({ code: 160004 });
    await expect(generalChannel(fixture).threads.create({ name: '' })).rejects.toMatchObject({ code: 50035 });
    const standalone = await generalChannel(fixture).threads.create({ name: 'standalone' });
    expect(standalone.parentId).toBe(emulator.defaultChannelId);
    expect(emulator.threads()).toHaveLength(2);
  });

  it('creates a webhook and executes it under another name and avatar inside a thread', async () => {
    fixture = await startClientFixture();
    const { emulator } = fixture;
    const channel = generalChannel(fixture);
    const root = await channel.send('🎯 Goal by ana');
    const thread = await root.startThread({ name: 'goal' });
    const webhook = await channel.createWebhook({ name: 'TSUKA characters' });
    const sent = await webhook.send({ content: 'I am Worf.', username: 'Worf', avatarURL: 'https://example.invalid/worf.png', threadId: thread.id });
    expect(sent.channelId).toBe(thread.id);
    expect(sent.webhookId).toBe(webhook.id);
    expect(sent.author.username).toBe('Worf');
    const stored = emulator.messages(thread.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ username: 'Worf', webhookId: webhook.id, avatarUrl: 'https://example.invalid/worf.png', content: 'I am Worf.' });
    const edited = await webhook.editMessage(sent.id, { content: 'I am Worf, son of Mogh.', threadId: thread.id });
    expect(edited.content).toBe('I am Worf, son of Mogh.');
    expect(emulator.messages(thread.id)[0]?.revisions.map((revision) => revision.content)).toEqual(['I am Worf.', 'I am Worf, son of Mogh.']);
    expect(emulator.webhooks().map((hook) => hook.name)).toEqual(['TSUKA characters']);
  });

  it('rejects a 2,001-character message with Invalid Form Body (50035) surfaced as DiscordAPIError', async () => {
    fixture = await startClientFixture();
    const error: unknown = await generalChannel(fixture)
      .send('x'.repeat(2001))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ code: 50035, status: 400 });
    expect((error as DiscordAPIError).rawError).toMatchObject({
      errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
    });
    await generalChannel(fixture).send('x'.repeat(2000));
    expect(fixture.emulator.messages().map((message) => message.content.length)).toEqual([2000]);
  });

  it('gets a burst of 8 messages through the per-channel limit, after at least one 429', async () => {
    fixture = await startClientFixture();
    const channel = generalChannel(fixture);
    const texts = Array.from({ length: 8 }, (_, index) => `part ${index + 1}`);
    const sent = await Promise.all(texts.map((text) => channel.send(text)));
    expect(sent.map((message) => message.content)).toEqual(texts);
    expect(
      fixture.emulator
        .messages(channel.id)
        .map((message) => message.content)
        .sort(),
    ).toEqual([...texts].sort());
    expect(fixture.emulator.rateLimited.length).toBeGreaterThanOrEqual(1);
    expect(fixture.emulator.rateLimited.every((entry) => entry.scope === 'shared' && entry.path === `/channels/${channel.id}/messages`)).toBe(true);
    const refused = fixture.emulator.calls.filter((call) => call.status === 429);
    expect(refused).toHaveLength(fixture.emulator.rateLimited.length);
  });

  it('leaves no gateway socket or HTTP server behind after client.destroy() and close()', async () => {
    fixture = await startClientFixture();
    const { emulator } = fixture;
    const apiUrl = emulator.apiUrl;
    await fixture.stop();
    fixture = undefined;
    expect(emulator.gatewayLog.at(-1)).toMatchObject({ kind: 'close', code: 1000 });
    await expect(fetch(`${apiUrl}/v10/gateway`)).rejects.toThrow();
    await emulator.close();
  });
});
