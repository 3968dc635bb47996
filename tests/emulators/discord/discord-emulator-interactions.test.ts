import { once } from 'node:events';
import {
  ActionRowBuilder,
  ApplicationCommandOptionType,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  Events,
  MessageFlags,
  type ChatInputApplicationCommandData,
  type Interaction,
  type Message,
  type TextChannel,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startClientFixture, type ClientFixture } from './discord-client-fixture.js';
import { DEFAULT_USER } from './discord-emulator.js';

const GOAL_COMMAND: ChatInputApplicationCommandData = {
  name: 'goal',
  description: 'Plan and run a goal',
  options: [{ name: 'objective', description: 'What to achieve', type: ApplicationCommandOptionType.String, required: true }],
};

describe('discord emulator: interactions, commands, uploads and reconnects', () => {
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

  const nextInteraction = (f: ClientFixture) => once(f.client, Events.InteractionCreate) as Promise<[Interaction]>;

  it('records every PUT of application commands and counts only new commands as creates', async () => {
    fixture = await startClientFixture();
    const { client, emulator } = fixture;
    const created = await client.application.commands.set([GOAL_COMMAND], emulator.guildId);
    expect([...created.values()].map((command) => command.name)).toEqual(['goal']);
    await client.application.commands.set([GOAL_COMMAND, { name: 'tsuka', description: 'Settings' }], emulator.guildId);
    expect(emulator.commandPuts.map((put) => [put.scope, put.created])).toEqual([
      [emulator.guildId, 1],
      [emulator.guildId, 1],
    ]);
    const listed = await client.application.commands.fetch({ guildId: emulator.guildId });
    expect([...listed.values()].map((command) => command.name).sort()).toEqual(['goal', 'tsuka']);
    expect(listed.find((command) => command.name === 'goal')?.id).toBe(created.first()?.id);
  });

  it('delivers a slash command that is deferred and then edited through @original', async () => {
    fixture = await startClientFixture();
    const { client, emulator } = fixture;
    await client.application.commands.set([GOAL_COMMAND], emulator.guildId);
    const received = nextInteraction(fixture);
    const invoked = await emulator.invokeSlashCommand({
      name: 'goal',
      options: [{ name: 'objective', type: ApplicationCommandOptionType.String, value: 'ship it' }],
      userId: DEFAULT_USER.id,
      channelId: emulator.defaultChannelId,
    });
    const [interaction] = await received;
    if (!interaction.isChatInputCommand()) throw new Error('expected a chat input command');
    expect(interaction.commandName).toBe('goal');
    expect(interaction.options.getString('objective')).toBe('ship it');
    expect(interaction.user.id).toBe(DEFAULT_USER.id);
    await interaction.deferReply();
    expect(await invoked.responded).toMatchObject({ type: 5 });
    await interaction.editReply('🎯 Goal by ana: ship it');
    const [reply] = emulator.messages(emulator.defaultChannelId);
    expect(reply?.revisions.map((revision) => revision.content)).toEqual(['', '🎯 Goal by ana: ship it']);
    expect(reply?.flags).toBe(0);
    expect(emulator.interactionResponses).toEqual([expect.objectContaining({ interactionId: invoked.interactionId, type: 5, accepted: true })]);
    expect(emulator.interactionResponses[0]?.ms).toBeGreaterThanOrEqual(0);
    const editCall = emulator.calls.find((call) => call.method === 'PATCH');
    expect(editCall).toMatchObject({ path: `/webhooks/${emulator.applicationId}/${invoked.token}/messages/@original`, authorized: false });
    await expect(interaction.reply('twice')).rejects.toThrow();
  });

  it('records an ephemeral follow-up after a reply', async () => {
    fixture = await startClientFixture();
    const { client, emulator } = fixture;
    await client.application.commands.set([GOAL_COMMAND], emulator.guildId);
    const received = nextInteraction(fixture);
    await emulator.invokeSlashCommand({ name: 'goal', userId: DEFAULT_USER.id, channelId: emulator.defaultChannelId });
    const [interaction] = await received;
    if (!interaction.isChatInputCommand()) throw new Error('expected a chat input command');
    await interaction.reply('on it');
    await interaction.followUp({ content: 'only you can see this', flags: MessageFlags.Ephemeral });
    expect(emulator.followUps).toEqual([expect.objectContaining({ content: 'only you can see this', ephemeral: true })]);
  });

  it('delivers a button click that is deferred with deferUpdate and settled by editing the message', async () => {
    fixture = await startClientFixture();
    const { emulator } = fixture;
    const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setCustomId('approve:1').setLabel('Approve').setStyle(ButtonStyle.Success),
      new ButtonBuilder().setCustomId('deny:1').setLabel('Deny').setStyle(ButtonStyle.Danger),
    );
    const prompt = await generalChannel(fixture).send({ content: 'Run `npm test`?', components: [row] });
    const received = nextInteraction(fixture);
    const invoked = await emulator.clickButton({ messageId: prompt.id, customId: 'approve:1', userId: DEFAULT_USER.id, channelId: prompt.channelId });
    const [interaction] = await received;
    if (!interaction.isButton()) throw new Error('expected a button interaction');
    expect(interaction.customId).toBe('approve:1');
    expect(interaction.message.id).toBe(prompt.id);
    await interaction.deferUpdate();
    expect(await invoked.responded).toMatchObject({ type: 6 });
    await interaction.editReply({ content: '✅ Approved by @ana', components: [] });
    const stored = emulator.messages().find((message) => message.id === prompt.id);
    expect(stored?.content).toBe('✅ Approved by @ana');
    expect(stored?.payload.components).toEqual([]);
    await expect(emulator.clickButton({ messageId: prompt.id, customId: 'deny:1', userId: DEFAULT_USER.id, channelId: prompt.channelId })).rejects.toThrow(
      /no enabled button 'deny:1'/,
    );
  });

  it('accepts a multipart upload and records the file name and bytes', async () => {
    fixture = await startClientFixture();
    const bytes = Buffer.from('# export\nline two\n');
    const sent = await generalChannel(fixture).send({ content: 'run export', files: [{ attachment: bytes, name: 'run-42.md' }] });
    expect(sent.attachments.first()?.name).toBe('run-42.md');
    expect(sent.attachments.first()?.size).toBe(bytes.length);
    const [stored] = fixture.emulator.messages();
    expect(stored?.files.map((file) => [file.field, file.filename])).toEqual([['files[0]', 'run-42.md']]);
    expect(stored?.files[0]?.bytes.equals(bytes)).toBe(true);
    expect(stored?.content).toBe('run export');
  });

  it('resumes after a gateway disconnect and replays the message it missed', async () => {
    fixture = await startClientFixture();
    const { client, emulator } = fixture;
    await emulator.disconnectGateway(4000);
    expect(emulator.gatewayLog.at(-1)).toMatchObject({ kind: 'close', code: 4000 });
    emulator.postUserMessage({ channelId: emulator.defaultChannelId, userId: DEFAULT_USER.id, content: 'while you were away', mentionsBot: true });
    const [message] = (await once(client, Events.MessageCreate)) as [Message];
    expect(message.content).toContain('while you were away');
    expect(emulator.gatewayLog.filter((entry) => entry.kind === 'identify')).toHaveLength(1);
    expect(emulator.gatewayLog.filter((entry) => entry.kind === 'resume')).toHaveLength(1);
  });
});
