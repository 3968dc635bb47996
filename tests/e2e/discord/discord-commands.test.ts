/** Application commands on Discord: registered once (guild-scoped or global), deferred within 3 s, answered ephemerally; `/tsuka export` uploads; the 4014 fallback. */
import { afterEach, describe, expect, it } from 'vitest';
import type { DiscordEmulator, InvokedInteraction } from '../../emulators/discord/discord-emulator.js';
import { ADMIN, ANA, BEN, sharedDiscordHarness, startDiscordHarness, type DiscordHarness } from './discord-harness.js';

let harnesses: DiscordHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.reverse()) await harness.stop();
  harnesses = [];
});

async function start(options: Parameters<typeof startDiscordHarness>[0] = {}): Promise<DiscordHarness> {
  const harness = await startDiscordHarness(options);
  harnesses.push(harness);
  return harness;
}

const STRING = 3;
/** The ephemeral answer that replaced the deferred "thinking…" message of an interaction. */
const answerOf = (discord: DiscordEmulator, invoked: InvokedInteraction) =>
  discord
    .messages()
    .find((message) => message.payload.interaction_metadata?.id === invoked.interactionId && message.content.length > 0 && (message.flags & 64) !== 0);

describe('Discord application commands', () => {
  it('registers /call /team /goal /tsuka with typed options in the configured guild, and not again when nothing changed', async () => {
    const first = await start();
    const { discord } = first;
    expect(discord.commandPuts).toHaveLength(1);
    const put = discord.commandPuts[0]!;
    expect(put.scope).toBe(discord.guildId);
    const commands = put.commands as { name: string; options?: { name: string; type: number; required?: boolean }[] }[];
    expect(commands.map((command) => command.name).sort()).toEqual(['call', 'goal', 'team', 'tsuka']);
    const call = commands.find((command) => command.name === 'call')!;
    expect(call.options!.map((option) => [option.name, option.type, option.required === true])).toEqual([
      ['participants', 3, true],
      ['topic', 3, false],
      ['rounds', 4, false],
    ]);
    await first.stopApp();
    // A second process against the same Discord finds the same set and writes nothing.
    const second = await start({ reuse: discord });
    expect(second.discord.commandPuts).toHaveLength(1);
    expect(discord.calls.filter((call) => call.method === 'GET' && call.path.endsWith(`/guilds/${discord.guildId}/commands`))).toHaveLength(2);
  });

  it('registers globally when no guild is configured, and not again when nothing changed', async () => {
    const global = { environment: { TSUKA_DISCORD_GUILD_IDS: undefined } };
    const first = await start(global);
    const { discord } = first;
    const globalPath = `/applications/${discord.applicationId}/commands`;
    expect(discord.commandPuts.map((put) => put.scope)).toEqual(['global']);
    expect((discord.commandPuts[0]!.commands as { name: string }[]).map((command) => command.name).sort()).toEqual(['call', 'goal', 'team', 'tsuka']);
    const puts = () => discord.calls.filter((call) => call.method === 'PUT' && call.path.includes('/commands'));
    expect(puts().map((call) => call.path)).toEqual([globalPath]);
    expect(discord.calls.filter((call) => call.path.includes('/guilds/') && call.path.endsWith('/commands'))).toEqual([]);
    await first.stopApp();
    const second = await start({ ...global, reuse: discord });
    expect(second.discord.commandPuts).toHaveLength(1);
    expect(puts()).toHaveLength(1);
    expect(discord.calls.filter((call) => call.method === 'GET' && call.path === globalPath)).toHaveLength(2);
    // The globally registered commands are the ones Discord delivers.
    const invoked = await discord.invokeSlashCommand({
      name: 'tsuka',
      options: [{ name: 'command', type: STRING, value: 'help' }],
      userId: ANA,
      channelId: discord.defaultChannelId,
    });
    expect((await discord.waitFor(() => answerOf(discord, invoked))).content).toMatch(/TSUKA/);
  });

  it('without the Message Content intent, reconnects without it, says how to enable it, and still answers mentions', async () => {
    const harness = await start({ emulator: { messageContentIntentAllowed: false } });
    const { discord, model } = harness;
    expect(discord.gatewayLog.filter((entry) => entry.kind === 'close').map((entry) => entry.code)).toContain(4014);
    // The session that was accepted asked without MessageContent (1 << 15).
    const sessions = discord.gatewayLog.filter((entry) => entry.kind === 'identify');
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.intents! & (1 << 15)).toBe(0);
    expect(harness.logs.join('')).toMatch(/Message Content Intent/);
    expect(harness.logs.join('')).toMatch(/follow-ups need a mention/);
    model.enqueue({ text: 'Mentions still work.' });
    const question = harness.mention({ content: 'geordi are you there?' });
    await harness.waitForReply(question.id, 'Mentions still work.');
    expect((model.requests[0]!.body as { messages: { content: string }[] }).messages.at(-1)!.content).toBe('are you there?');
  });
});

describe('Discord application commands on one running bot', () => {
  const bot = sharedDiscordHarness();

  it('defers /tsuka help within 3 s and answers it ephemerally', async () => {
    const harness = bot();
    const { discord } = harness;
    const invoked = await discord.invokeSlashCommand({
      name: 'tsuka',
      options: [{ name: 'command', type: STRING, value: 'help' }],
      userId: ANA,
      channelId: harness.channelId,
    });
    const response = await invoked.responded;
    expect(response.type).toBe(5);
    expect(response.ms).toBeLessThan(3000);
    const accepted = discord.interactionResponses.find((record) => record.interactionId === invoked.interactionId)!;
    expect((accepted.data as { flags?: number }).flags! & 64).toBe(64);
    const answer = await discord.waitFor(() => answerOf(discord, invoked));
    expect(answer.content).toMatch(/TSUKA/);
    expect(answer.content).toMatch(/\/call/);
  });

  it("/tsuka export uploads the transcript of the channel's last run as an attachment", async () => {
    const harness = bot();
    const { discord, model } = harness;
    model.enqueue({ text: 'Exported answer.' });
    const question = harness.mention({ content: 'geordi say something worth keeping' });
    await harness.waitForReply(question.id, 'Exported answer.');
    const invoked = await discord.invokeSlashCommand({
      name: 'tsuka',
      options: [{ name: 'command', type: STRING, value: 'export' }],
      userId: ANA,
      channelId: harness.channelId,
    });
    const upload = await discord.waitFor(() => discord.messages(harness.channelId).find((message) => message.files.length > 0));
    expect(upload.files[0]!.filename).toMatch(/\.md$/);
    const transcript = upload.files[0]!.bytes.toString('utf8');
    expect(transcript).toContain('say something worth keeping');
    expect(transcript).toContain('Exported answer.');
    expect((await discord.waitFor(() => answerOf(discord, invoked))).content).toMatch(/Uploaded the transcript/);
  });

  it("a private channel's run: refused from #general to a member; an admin's export goes to the admin's DM, not #general", async () => {
    const harness = bot();
    const { discord, model } = harness;
    // This test's #general (its fresh channel) and a private channel beside it.
    const GENERAL = harness.channelId;
    const PRIVATE = discord.createChannel('sec-private');
    // Messages before this test are other tests' (this bot is shared).
    const earlier = discord.messages().length;
    model.enqueue({ text: 'The vault code is 7741.' });
    const question = harness.mention({ channelId: PRIVATE, content: 'geordi rotate the vault keys' });
    await harness.waitForReply(question.id, '7741');
    const runId = (await harness.app.engine.runs.list())[0]!.id;
    const tsuka = async (userId: string, value: string) => {
      const invoked = await discord.invokeSlashCommand({
        name: 'tsuka',
        options: [{ name: 'command', type: STRING, value }],
        userId,
        channelId: GENERAL,
      });
      return (await discord.waitFor(() => answerOf(discord, invoked))).content;
    };
    expect(await tsuka(BEN, `export ${runId}`)).toBe(`No run ${runId} in this channel.`);
    expect(await tsuka(ADMIN, `export ${runId}`)).toMatch(/sent to you in a direct message/);
    const upload = await discord.waitFor(() =>
      discord
        .messages()
        .slice(earlier)
        .find((message) => message.files.length > 0),
    );
    expect([GENERAL, PRIVATE]).not.toContain(upload.channelId);
    expect(upload.files[0]!.bytes.toString('utf8')).toContain('7741');
    // #general holds nothing of the private run: only the two ephemeral answers, none with its words.
    const general = discord.messages(GENERAL);
    expect(general.every((message) => (message.flags & 64) !== 0 && message.files.length === 0 && !/vault|7741/.test(message.content))).toBe(true);

    // Memory keeps to the channel too (issue 21): a fact saved in #sec-private never reaches a
    // request of a conversation in #general, and is there in #sec-private.
    model.enqueue({ toolCalls: [{ name: 'save_memory', arguments: { content: 'The vault code is 7741-omega.' } }] });
    model.enqueue({ text: 'Saved it.' });
    const saving = harness.mention({ channelId: PRIVATE, content: 'obrien remember: the vault code is 7741-omega' });
    await harness.waitForReply(saving.id, 'Saved it.');
    const before = model.requests.length;
    model.enqueue({ text: 'No idea.' });
    const asking = harness.mention({ channelId: GENERAL, content: 'obrien what is the vault code?' });
    await harness.waitForReply(asking.id, 'No idea.');
    expect(
      model.requests
        .slice(before)
        .map((request) => JSON.stringify(request.body))
        .join('\n'),
    ).not.toContain('7741-omega');
    model.enqueue({ text: 'It is 7741-omega.' });
    const own = harness.mention({ channelId: PRIVATE, content: 'obrien what is the vault code?' });
    await harness.waitForReply(own.id, 'It is 7741-omega.');
    expect(JSON.stringify(model.requests.at(-1)!.body)).toContain('7741-omega');
  });
});
