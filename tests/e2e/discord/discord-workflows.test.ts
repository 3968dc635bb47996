/** /call and /goal from Discord application commands: the whole bot, the real discord.js, the Discord emulator and a scripted model server. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEFAULT_USER } from '../../emulators/discord/discord-emulator.js';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import { callerOf } from '../../support/scripted-callers.js';
import { buttonsOf, sharedDiscordHarness, type DiscordHarness } from './discord-harness.js';

const STRING = 3;
const INTEGER = 4;

const ANA = DEFAULT_USER.id;

type Harness = DiscordHarness;

/** A free port of 127.0.0.1: the bot's HTTP server takes it, so that TSUKA_PUBLIC_URL can name it before the start. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A run thread holds many turns: pacing is lowered and the emulator's limit raised, or it would take most of a minute.
 * TSUKA_PUBLIC_URL points at the bot's own HTTP server: webhooks post with the characters' pictures.
 */
const port = await freePort();
const harnessOptions = {
  emulator: { rateLimits: { messagesPerChannelPer5s: 200 } },
  pacing: { editSpacingMsPerChannel: 50 },
  environment: { TSUKA_HTTP_PORT: String(port), TSUKA_PUBLIC_URL: `http://127.0.0.1:${port}/` },
};

type Body = { messages: { role: string; content: string }[]; tools?: unknown[] };
const lastUser = (body: unknown): string => [...(body as Body).messages].reverse().find((message) => message.role === 'user')?.content ?? '';

/** The run's root message in the channel and the thread started from it. */
async function rootAndThread(h: Harness, prefix: string) {
  const root = await h.discord.waitFor(() =>
    h.discord.messages(h.channelId).find((message) => message.authorId === h.discord.botUserId && message.content.startsWith(prefix)),
  );
  const thread = await h.discord.waitFor(() =>
    h.threads().find((candidate) => candidate.id === root.id || (candidate as { message_id?: string }).message_id === root.id),
  );
  return { root, threadId: thread.id };
}

/** Every bot message of the thread but the run card and the pictures (📊), as [author, text]. */
function transcript(h: Harness, threadId: string) {
  const replies = h.botReplies(threadId).filter((message) => !message.content.startsWith('📊'));
  const card = replies.find((message) => message.content.startsWith('🛰'));
  return {
    card,
    lines: replies
      .filter((message) => message !== card)
      .map((message) => [message.webhookId ? message.username.split(' ').at(-1)! : 'bot', message.content.trim()] as const),
  };
}

describe('Discord workflows', () => {
  const bot = sharedDiscordHarness(harnessOptions);
  it('/call: root message, a thread from it, round markers, each turn under its identity, then the synthesis', async () => {
    const h = bot();
    const speaker = (body: unknown) =>
      /You are (\w+) in a debate/.exec(lastUser(body))?.[1] ?? /As (\w+), write the closing synthesis/.exec(lastUser(body))?.[1] ?? '?';
    h.model.enqueue((body) => ({ text: `${speaker(body)}: sessions fit Redis.` }));
    h.model.enqueue((body) => ({ text: `${speaker(body)}: ${lastUser(body).includes('Geordi: sessions fit Redis.') ? 'I read Geordi.' : 'no transcript'}` }));
    h.model.enqueue((body) => ({ text: `${speaker(body)} sums up: cache with a TTL.` }));
    const invoked = await h.discord.invokeSlashCommand({
      name: 'call',
      options: [
        { name: 'participants', type: STRING, value: '@geordi @Spock' },
        { name: 'topic', type: STRING, value: 'Should we cache sessions in Redis?' },
        { name: 'rounds', type: INTEGER, value: 1 },
      ],
      userId: ANA,
      channelId: h.channelId,
    });
    expect((await invoked.responded).ms).toBeLessThan(3000);
    const { root, threadId } = await rootAndThread(h, '📞');
    expect(root.content).toContain(`Call by <@${ANA}>: Should we cache sessions in Redis? — Geordi, Spock · 1 round`);
    await h.discord.waitFor(() => transcript(h, threadId).lines.some(([, text]) => text.includes('Verdict')), { timeoutMs: 8000 });
    const { card, lines } = transcript(h, threadId);
    expect(lines).toEqual([
      ['bot', '— Round 1 of 1 —'],
      ['Geordi', 'Geordi: sessions fit Redis.'],
      ['Spock', 'Spock: I read Geordi.'],
      // No supervisor among the participants: TSUKA moderates (issue 28), then the verdict card.
      ['bot', '— Synthesis by TSUKA —'],
      ['TSUKA', 'TSUKA sums up: cache with a TTL.'],
      ['bot', expect.stringContaining('✅ Call finished.')],
      ['bot', expect.stringContaining('Verdict')],
    ]);
    expect(card!.content).toContain('finished');
    expect(buttonsOf(card!)).toHaveLength(0);
    // The debaters get no tools; the moderator only record_decision (issue 35).
    expect((h.model.requests.at(-2)!.body as Body).tools).toBeUndefined();
    expect((((h.model.requests.at(-1)!.body as Body).tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual([
      'record_decision',
    ]);
    // A face per character: each speaker's webhook posts carry its own picture, which the bot serves as a PNG.
    const avatarOf = (name: string) => [
      ...new Set(
        h
          .botReplies(threadId)
          .filter((message) => message.username === name)
          .map((message) => message.avatarUrl),
      ),
    ];
    const [geordi, spock] = [avatarOf('Geordi'), avatarOf('Spock')];
    expect(geordi).toEqual([`http://127.0.0.1:${h.app.http.port}/avatars/geordi.png`]);
    expect(spock).toEqual([`http://127.0.0.1:${h.app.http.port}/avatars/spock.png`]);
    const pictures = await Promise.all([geordi[0]!, spock[0]!].map((url) => fetch(url)));
    for (const picture of pictures) {
      expect(picture.status).toBe(200);
      expect(picture.headers.get('content-type')).toBe('image/png');
    }
    const [first, second] = await Promise.all(pictures.map(async (picture) => Buffer.from(await picture.arrayBuffer())));
    expect(first!.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(first!.equals(second!)).toBe(false);
  });

  it('/goal: the plan, each step under its identity, reviews by the supervisor the plan names and the stats table in the thread', async () => {
    const h = bot();
    const script: Record<string, ScriptedReplySpec[]> = {
      plan: [{ text: '- AGENT: @geordi — Write hello.txt\n- AGENT: @worf — Audit hello.txt\n- AGENT: @pike — Sign off\n- END' }],
      'step:1': [{ toolCalls: [{ name: 'report_status', arguments: { status: 'COMPLETED', summary: 'hello written' } }] }, { text: 'Wrote hello.txt.' }],
      'review:1': [{ text: 'VOTE: APPROVE — good' }],
      'step:2': [{ text: 'Audit clean.\nSTATUS: COMPLETED — clean' }],
      'review:2': [{ text: 'VOTE: APPROVE — good' }],
      'step:3': [{ text: 'Signed off.\nSTATUS: COMPLETED — signed off' }],
    };
    for (let index = 0; index < 7; index++)
      h.model.enqueue((body) => script[callerOf(body as never)]?.shift() ?? { text: `(nothing scripted for ${callerOf(body as never)})` });
    const invoked = await h.discord.invokeSlashCommand({
      name: 'goal',
      options: [{ name: 'objective', type: STRING, value: 'hello world, audited' }],
      userId: ANA,
      channelId: h.channelId,
    });
    expect((await invoked.responded).ms).toBeLessThan(3000);
    const { root, threadId } = await rootAndThread(h, '🎯');
    expect(root.content).toBe(`🎯 Goal by <@${ANA}>: hello world, audited`);
    await h.discord.waitFor(() => transcript(h, threadId).lines.some(([, text]) => text.includes('Goal completed')), { timeoutMs: 8000 });
    const { card, lines } = transcript(h, threadId);
    expect(lines.map(([author]) => author)).toEqual(['bot', 'Geordi', 'Pike', 'Worf', 'Pike', 'Pike', 'bot']);
    expect(lines[0]![1]).toBe('📋 Plan (3 steps):\n1. @geordi — Write hello.txt\n2. @worf — Audit hello.txt\n3. @pike — Sign off');
    expect(lines[1]![1]).toContain('Wrote hello.txt.');
    expect(lines[1]![1]).toContain('step done — step 1: hello written');
    expect(lines[2]![1]).toContain('step 1 accepted — good');
    expect(lines[3]![1]).toContain('⚠️ degraded protocol: status read from a STATUS: line');
    expect(lines[5]![1]).toContain('Signed off.');
    expect(lines[6]![1]).toMatch(/^✅ Goal completed\.\n3 step\(s\) done\n```/);
    expect(lines[6]![1]).toMatch(/agent\s+output tokens\s+peak context\s+total tokens\s+time\s+tokens\/s/);
    expect(lines[6]![1]).toMatch(/\npike\s+\d/);
    expect(card!.content).toContain('finished');
    expect(buttonsOf(card!)).toHaveLength(0);
    // The plan as a dependency graph and the closing stats as a chart: PNG attachments with alt text.
    const pictures = await h.discord.waitFor(() => {
      const found = h.botReplies(threadId).filter((message) => message.content.startsWith('📊'));
      return found.length === 2 ? found : undefined;
    });
    expect(pictures.map((message) => message.payload.attachments?.[0]?.description ?? '')).toEqual([
      expect.stringContaining('Plan: step 1 (@geordi) → step 2 (@worf)'),
      expect.stringContaining('geordi: '),
    ]);
    expect(pictures.map((message) => message.content)).toEqual(['📊 Plan: who works when', '📊 Goal: hello world, audited — tokens and time per agent']);
    const files = pictures.flatMap((message) => message.files);
    expect(files.map((file) => file.filename)).toEqual(['goal-plan.png', 'goal-stats.png']);
    for (const file of files) expect(file.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    // The planner gets no tools; the steps do.
    expect((h.model.requests[0]!.body as Body).tools).toBeUndefined();
    expect((h.model.requests[1]!.body as Body).tools?.length).toBeGreaterThan(0);
  });
});
