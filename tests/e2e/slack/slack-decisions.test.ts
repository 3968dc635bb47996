/**
 * Issue 28 on the Slack emulator, end to end (the real Bolt, the scripted model server), one app
 * for the file: a /call ends with a verdict card; Adopt saves a `decision` fact and, after the
 * write approval, an ADR file in the workspace; a later conversation's prompt carries the
 * decision's id; a /goal whose parallel steps conflict gets a merge from its supervisor that,
 * approved, leaves the merged file; a finished reply's menus ask another character for a second
 * opinion (with the request, the reply and its tool results) and re-run the request as another
 * character (a DANGEROUS call asked again, of the person who clicked).
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import { callerOf, lastUserOf, systemOf } from '../../support/scripted-callers.js';
import { buttonsOf, menusOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

// Threads of many messages: the per-channel post pacing is raised (as in slack-workflows) so the test stays fast.
const FAST = {
  emulator: { rateLimits: { postMessageBurst: 10, postMessagePerChannelPerSecond: 20, updatePerMinute: 1200 } },
  rateLimits: { postBurst: 10, postsPerSecondPerChannel: 20, updatesPerMinute: 1200 },
};

let harness: SlackHarness;
beforeAll(async () => {
  harness = await startSlackHarness(FAST);
});
afterAll(async () => {
  await harness?.stop();
});

type Message = ReturnType<SlackHarness['slack']['messages']>[number];
type Body = { messages: { role: string; content: string }[] };

const rootOf = (prefix: string): Message | undefined =>
  harness.slack.messages('C1').find((message) => message.bot_id && message.text.startsWith(prefix) && (!message.thread_ts || message.thread_ts === message.ts));

const click = (message: Message, actionId: string, userId = 'U1') => {
  const button = buttonsOf(message).find((candidate) => candidate.action_id === actionId)!;
  return harness.slack.deliverBlockAction({ userId, channelId: 'C1', messageTs: message.ts, threadTs: message.thread_ts, actionId, value: button.value });
};

/** Picks the option of a reply's menu whose label is `label`, as `userId`. */
const pick = (message: Message, actionId: string, label: string, userId = 'U1') => {
  const menu = menusOf(message).find((candidate) => candidate.action_id === actionId)!;
  const option = menu.options.find((candidate) => candidate.text.text === label)!;
  return harness.slack.deliverBlockAction({
    userId,
    channelId: 'C1',
    messageTs: message.ts,
    threadTs: message.thread_ts,
    actionId,
    value: '',
    selectedOption: { value: option.value, text: label },
  });
};

/** The finished reply in a thread that says `text`: its menus are on. */
const finishedReply = (rootTs: string, text: string) =>
  harness.botReplies('C1', rootTs).find((message) => message.text.includes(text) && menusOf(message).length > 0);

/** Approves, as U1, every approval prompt of the thread not approved yet, `count` in all; returns their texts. */
async function approveAll(rootTs: string, count: number): Promise<string[]> {
  const done = new Set<string>();
  const texts: string[] = [];
  const pending = () =>
    harness.botReplies('C1', rootTs).find((message) => !done.has(message.ts) && buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'));
  for (let index = 0; index < count; index++) {
    await harness.slack.waitFor(() => pending() !== undefined, { timeoutMs: 8000 });
    const prompt = pending()!;
    done.add(prompt.ts);
    texts.push(prompt.text);
    await click(prompt, 'tsuka_approve');
  }
  return texts;
}

describe('Slack: debates end in decisions, conflicts are merged by a character', () => {
  let decisionId = '';

  it('/call ends with a verdict card; Adopt saves a decision fact and, once approved, writes docs/decisions/0001-….md', async () => {
    const { slack, model } = harness;
    model.enqueue({ text: 'Redis is fast.\nPOSITION: Cache sessions in Redis.\nVOTE: APPROVE — it is fast' });
    model.enqueue({ text: 'Measure first.\nPOSITION: Only with a measured TTL.\nVOTE: CHANGE — measure the TTL' });
    model.enqueue((body) => ({
      text: systemOf(body as Body).includes('neutral moderator')
        ? 'OPTIONS:\n- Redis with a TTL\n- The database\nDECISION: Cache sessions in Redis with a TTL\nBoth favour Redis; Spock wants the TTL measured.'
        : 'not the moderator',
    }));
    await slack.deliverSlashCommand({ command: '/call', text: 'geordi spock rounds=1 "Should we cache sessions in Redis?"', userId: 'U1', channelId: 'C1' });
    await slack.waitFor(() => Boolean(rootOf('📞')));
    const root = rootOf('📞')!;
    const cardOf = () => harness.botReplies('C1', root.ts).find((message) => message.text.includes('Verdict'));
    await slack.waitFor(() => buttonsOf(cardOf() ?? {}).length === 2, { timeoutMs: 8000 });
    const card = cardOf()!;
    expect(buttonsOf(card).map((button) => button.text.text)).toEqual(['Adopt', 'Reopen']);
    expect(card.text).toContain('Should we cache sessions in Redis?');
    expect(card.text).toContain('Redis with a TTL');
    expect(card.text).toMatch(/Geordi.*Cache sessions in Redis\..*APPROVE — it is fast/);
    expect(card.text).toMatch(/Spock.*Only with a measured TTL\..*CHANGE — measure the TTL/);
    expect(card.text).toContain('Cache sessions in Redis with a TTL');
    expect(card.text).toMatch(/Dissent:?\*? Spock \(CHANGE — measure the TTL\)/);
    // The synthesis came from TSUKA, not from one of the debaters.
    expect(harness.botReplies('C1', root.ts).some((message) => message.username === 'TSUKA' && message.text.includes('DECISION:'))).toBe(true);

    await click(card, 'tsuka_verdict_adopt');
    const [prompt] = await approveAll(root.ts, 1);
    expect(prompt).toContain('docs/decisions/0001-cache-sessions-in-redis-with-a-ttl.md');
    await slack.waitFor(() => harness.botReplies('C1', root.ts).some((message) => message.text.startsWith('📄 Wrote')), { timeoutMs: 8000 });
    const adopted = harness.botReplies('C1', root.ts).find((message) => message.ts === card.ts)!;
    expect(buttonsOf(adopted)).toEqual([]);
    decisionId = /as decision `([^`]+)`/.exec(adopted.text)?.[1] ?? '';
    expect(decisionId).not.toBe('');
    const record = await readFile(path.join(harness.workspace, 'docs', 'decisions', '0001-cache-sessions-in-redis-with-a-ttl.md'), 'utf8');
    expect(record).toContain('# 0001. Cache sessions in Redis with a TTL');
    expect(record).toContain(`- Memory: decision \`${decisionId}\``);
  });

  it('a later conversation in the channel carries the decision and its id in its prompt; /tsuka decisions lists it', async () => {
    const { slack, model } = harness;
    expect(decisionId).not.toBe('');
    const before = model.requests.length;
    model.enqueue({ text: 'We cache sessions in Redis.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi how do we cache sessions, Redis?` });
    await slack.waitFor(() =>
      harness.botReplies('C1', mention.ts).some((message) => message.text.includes('We cache sessions in Redis.') && buttonsOf(message).length === 0),
    );
    const system = systemOf(model.requests[before]!.body as Body);
    expect(system).toContain(`[decision] Decision: Cache sessions in Redis with a TTL`);
    expect(system).toContain(`(id ${decisionId})`);
    expect(system).toContain('cite it as "decision <id>"');

    const responses = slack.responses.length;
    await slack.deliverSlashCommand({ command: '/tsuka', text: 'decisions', userId: 'U2', channelId: 'C1' });
    await slack.waitFor(() => slack.responses.length > responses);
    expect(String((slack.responses.at(-1)!.body as { text?: string }).text)).toContain(decisionId);
  });

  it('/goal: parallel steps that change one file differently get a merge from the supervisor that, approved, leaves the merged file', async () => {
    const { slack, model } = harness;
    await mkdir(harness.workspace, { recursive: true });
    await writeFile(path.join(harness.workspace, 'notes.txt'), 'notes\n');
    const merged = 'notes\ngeordi: build\ndata: docs\n';
    const script: Record<string, ScriptedReplySpec[]> = {
      plan: [{ text: 'PARALLEL:\nAGENT: @geordi — Add your line\nAGENT: @data — Add your line\nEND PARALLEL\nAGENT: @pike — Sign off\nEND' }],
      'step:1': [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'notes\ngeordi: build\n' } }] },
        { text: 'STATUS: COMPLETED — added' },
      ],
      'step:2': [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'notes\ndata: docs\n' } }] },
        { text: 'STATUS: COMPLETED — added' },
      ],
      'merge:notes.txt': [{ text: `Kept both lines.\n\`\`\`\n${merged}\`\`\`` }],
      'review:1': [{ text: 'VOTE: APPROVE — fine' }],
      'review:2': [{ text: 'VOTE: APPROVE — fine' }],
      'step:3': [{ text: 'Signed off.\nSTATUS: COMPLETED — signed' }],
    };
    const total = Object.values(script).reduce((sum, answers) => sum + answers.length, 0);
    for (let index = 0; index < total; index++)
      model.enqueue((body) => script[callerOf(body as never)]?.shift() ?? { text: `(nothing for ${callerOf(body as never)})` });

    await slack.deliverSlashCommand({ command: '/goal', text: 'both add a line to the notes', userId: 'U1', channelId: 'C1' });
    await slack.waitFor(() => Boolean(rootOf('🎯')));
    const root = rootOf('🎯')!;
    const prompts = await approveAll(root.ts, 3);
    await slack.waitFor(() => harness.botReplies('C1', root.ts).some((message) => message.text.includes('Goal completed')), { timeoutMs: 8000 });
    // The third approval is the merge, asked by Pike, with the change as a diff.
    expect(prompts[2]).toMatch(/pike.*wants to run `write_file`/);
    expect(prompts[2]).toContain('+ geordi: build');
    expect(prompts[2]).toContain('+ data: docs');
    expect(await readFile(path.join(harness.workspace, 'notes.txt'), 'utf8')).toBe(merged);
    const thread = harness.botReplies('C1', root.ts);
    expect(thread.some((message) => message.username === 'Pike' && message.text.includes('Kept both lines.'))).toBe(true);
    expect(thread.some((message) => message.text.includes("notes.txt: Pike's merge written."))).toBe(true);
    // Today's conflict copies stay for reference; the merged file is the workspace's.
    expect(await readdir(path.join(harness.workspace, '.tsuka', 'conflicts'))).toHaveLength(2);
    expect(lastUserOf(model.requests.map((request) => request.body as Body).find((body) => callerOf(body) === 'merge:notes.txt')!)).toContain('data: docs');
  });

  it('"Ask another character" on a finished reply: Worf answers in the thread, given the request, the reply and its tool results', async () => {
    const { slack, model } = harness;
    await mkdir(harness.workspace, { recursive: true });
    await writeFile(path.join(harness.workspace, 'service.json'), '{ "port": 8417 }\n');
    model.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'service.json' } }] });
    model.enqueue({ text: 'The service listens on port 8417.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi which port does the service use?` });
    await slack.waitFor(() => Boolean(finishedReply(mention.ts, 'port 8417')), { timeoutMs: 8000 });
    const reply = finishedReply(mention.ts, 'port 8417')!;
    expect(buttonsOf(reply)).toEqual([]);
    expect(menusOf(reply).map((menu) => menu.placeholder.text)).toEqual(['Ask another character…', 'Re-run…']);
    expect(menusOf(reply)[0]!.options.map((option) => option.text.text)).toContain('Ask Worf');
    expect(menusOf(reply)[0]!.options.map((option) => option.text.text)).not.toContain('Ask Geordi');

    const before = model.requests.length;
    model.enqueue({ text: 'Worf concurs: port 8417, and it should be firewalled.' });
    await pick(reply, 'tsuka_second_ask', 'Ask Worf', 'U2');
    await slack.waitFor(() => Boolean(finishedReply(mention.ts, 'Worf concurs')), { timeoutMs: 8000 });
    const second = finishedReply(mention.ts, 'Worf concurs')!;
    expect(second.username).toBe('Worf');
    expect(harness.botReplies('C1', mention.ts).some((message) => /<@U2> asked Worf for a second opinion on Geordi's reply/.test(message.text))).toBe(true);
    const asked = lastUserOf(model.requests[before]!.body as Body);
    expect(asked).toContain('which port does the service use?');
    expect(asked).toContain('The service listens on port 8417.');
    expect(asked).toMatch(/read_file \{"path":"service\.json"\} → success:\n.*"port": 8417/s);
    expect(systemOf(model.requests[before]!.body as Body)).toMatch(/Worf/);
  });

  it('"Re-run" as another character: the same request again, its DANGEROUS call asked again of whoever clicked', async () => {
    const { slack, model } = harness;
    const approvalOf = (rootTs: string, seen: Set<string>) =>
      harness.botReplies('C1', rootTs).find((message) => !seen.has(message.ts) && buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'));
    model.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: "sh -c 'echo build-ok'" } }] });
    model.enqueue({ text: 'The build printed build-ok.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi run the build check` });
    const seen = new Set<string>();
    await slack.waitFor(() => Boolean(approvalOf(mention.ts, seen)), { timeoutMs: 8000 });
    const first = approvalOf(mention.ts, seen)!;
    seen.add(first.ts);
    expect(first.text).toMatch(/Someone other than <@U1> must approve/);
    await click(first, 'tsuka_approve', 'U2');
    await slack.waitFor(() => Boolean(finishedReply(mention.ts, 'build-ok.')), { timeoutMs: 8000 });
    const reply = finishedReply(mention.ts, 'build-ok.')!;

    const before = model.requests.length;
    model.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: "sh -c 'echo build-ok'" } }] });
    model.enqueue({ text: 'Scotty confirms: build-ok.' });
    await pick(reply, 'tsuka_second_rerun', 'Re-run as Scotty', 'U2');
    // A new run holds no grant of the old one: the call is asked again, and U2 (who clicked) is its requester now.
    await slack.waitFor(() => Boolean(approvalOf(mention.ts, seen)), { timeoutMs: 8000 });
    const again = approvalOf(mention.ts, seen)!;
    expect(again.text).toMatch(/Someone other than <@U2> must approve/);
    await click(again, 'tsuka_approve', 'U1');
    await slack.waitFor(() => Boolean(finishedReply(mention.ts, 'Scotty confirms')), { timeoutMs: 8000 });
    expect(finishedReply(mention.ts, 'Scotty confirms')!.username).toBe('Scotty');
    expect(harness.botReplies('C1', mention.ts).some((message) => /<@U2> re-runs the request as Scotty/.test(message.text))).toBe(true);
    // The same request, from the history before the first run: the first answer is not in the prompt.
    const rerun = model.requests[before]!.body as Body;
    expect(lastUserOf(rerun)).toContain('run the build check');
    expect(JSON.stringify(rerun.messages)).not.toContain('The build printed build-ok.');
    expect(systemOf(rerun)).toMatch(/Scott/);
  });

  it('a /goal step carries the menus too: "Ask Worf" on Geordi\'s step gets the step\'s prompt and its write in the context', async () => {
    const { slack, model } = harness;
    const root = rootOf('🎯')!;
    const step = harness.botReplies('C1', root.ts).find((message) => message.username === 'Geordi' && menusOf(message).length > 0);
    expect(step).toBeDefined();
    const before = model.requests.length;
    model.enqueue({ text: 'Worf on the step: the line is fine.' });
    await pick(step!, 'tsuka_second_ask', 'Ask Worf', 'U1');
    await slack.waitFor(() => Boolean(finishedReply(root.ts, 'Worf on the step')), { timeoutMs: 8000 });
    expect(finishedReply(root.ts, 'Worf on the step')!.username).toBe('Worf');
    const asked = lastUserOf(model.requests[before]!.body as Body);
    expect(asked).toMatch(/Step \d+ of \d+ is yours/);
    expect(asked).toContain('write_file {"path":"notes.txt","content":"notes\\ngeordi: build\\n"}');
  });

  it('a menu value naming a run of another channel reaches nothing there', async () => {
    const { slack, model } = harness;
    model.enqueue({ text: 'Private answer 5521.' });
    const secret = await slack.mention({ userId: 'U1', channelId: 'C_OTHER', text: `<@${slack.botUserId}> geordi the private numbers` });
    await slack.waitFor(() => harness.botReplies('C_OTHER', secret.ts).some((message) => message.text.includes('5521') && menusOf(message).length > 0), {
      timeoutMs: 8000,
    });
    const foreign = harness.botReplies('C_OTHER', secret.ts).find((message) => menusOf(message).length > 0)!;
    const option = menusOf(foreign)[0]!.options.find((candidate) => candidate.text.text === 'Ask Worf')!;
    // The same option (the other channel's run id) used on a message of C1.
    const here = harness.slack.messages('C1').at(-1)!;
    const requests = model.requests.length;
    const ephemerals = slack.ephemerals.length;
    await slack.deliverBlockAction({
      userId: 'U2',
      channelId: 'C1',
      messageTs: here.ts,
      actionId: 'tsuka_second_ask',
      value: '',
      selectedOption: { value: option.value },
    });
    await slack.waitFor(() => slack.ephemerals.length > ephemerals);
    expect(slack.ephemerals.at(-1)).toMatchObject({ user: 'U2', text: expect.stringMatching(/not available here/) });
    expect(model.requests.length).toBe(requests);
  });

  it('issue 35: a /call whose moderator writes no DECISION line says "no decision was stated", never the topic, and offers Reopen, not Adopt', async () => {
    const { slack, model } = harness;
    model.enqueue({ text: 'Postgres queues are enough for us, I think.' });
    model.enqueue({ text: 'A broker would scale better, but it costs.' });
    model.enqueue({ text: 'Both raised fair points on cost and scale. The team should weigh them.' });
    const topic = 'Should we move jobs to a message broker?';
    await slack.deliverSlashCommand({ command: '/call', text: `geordi spock rounds=1 "${topic}"`, userId: 'U1', channelId: 'C1' });
    const root = () => harness.slack.messages('C1').find((message) => message.bot_id && message.text.startsWith('📞') && message.text.includes(topic));
    await slack.waitFor(() => Boolean(root()));
    const cardOf = () => harness.botReplies('C1', root()!.ts).find((message) => message.text.includes('Verdict'));
    await slack.waitFor(() => buttonsOf(cardOf() ?? {}).length > 0, { timeoutMs: 8000 });
    const card = cardOf()!;
    expect(buttonsOf(card).map((button) => button.text.text)).toEqual(['Reopen']);
    expect(card.text).toContain('no decision was stated');
    expect(card.text).not.toContain(`Decision proposed:* ${topic}`);
    expect(card.text).not.toContain(`Decision proposed:** ${topic}`);
  });

  it('issue 35: parallel /goal steps that conflict in a plan without a supervisor get a merge proposed by TSUKA', async () => {
    const { slack, model } = harness;
    await writeFile(path.join(harness.workspace, 'todo.txt'), 'todo\n');
    const merged = 'todo\ngeordi: api\ndata: docs\n';
    const script: Record<string, ScriptedReplySpec[]> = {
      plan: [{ text: 'PARALLEL:\nAGENT: @geordi — Add your todo\nAGENT: @data — Add your todo\nEND PARALLEL\nEND' }],
      'step:1': [{ toolCalls: [{ name: 'write_file', arguments: { path: 'todo.txt', content: 'todo\ngeordi: api\n' } }] }, { text: 'done' }],
      'step:2': [{ toolCalls: [{ name: 'write_file', arguments: { path: 'todo.txt', content: 'todo\ndata: docs\n' } }] }, { text: 'done' }],
      'merge:todo.txt': [{ text: `Merged both, here:\n\`\`\`\n${merged}\`\`\`` }],
    };
    const total = Object.values(script).reduce((sum, answers) => sum + answers.length, 0);
    for (let index = 0; index < total; index++)
      model.enqueue((body) => script[callerOf(body as never)]?.shift() ?? { text: `(nothing for ${callerOf(body as never)})` });
    await slack.deliverSlashCommand({ command: '/goal', text: 'both add a todo', userId: 'U1', channelId: 'C1' });
    const root = () =>
      harness.slack.messages('C1').find((message) => message.bot_id && message.text.startsWith('🎯') && message.text.includes('both add a todo'));
    await slack.waitFor(() => Boolean(root()));
    const prompts = await approveAll(root()!.ts, 3);
    await slack.waitFor(() => harness.botReplies('C1', root()!.ts).some((message) => /Goal (completed|finished)/.test(message.text)), { timeoutMs: 8000 });
    expect(prompts[2]).toMatch(/tsuka.*wants to run `write_file`/);
    expect(await readFile(path.join(harness.workspace, 'todo.txt'), 'utf8')).toBe(merged);
    expect(harness.botReplies('C1', root()!.ts).some((message) => message.text.includes("todo.txt: TSUKA's merge written."))).toBe(true);
  });
});
