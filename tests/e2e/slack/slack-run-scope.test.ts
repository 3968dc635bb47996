/**
 * Runs belong to their channel, on Slack (issue 21): from #general (C_GENERAL) a member cannot list,
 * export or trace a run of #sec-private (C_PRIVATE), and nothing of it reaches C_GENERAL — checked
 * on every message, ephemeral, upload and slash-command answer the emulator recorded there. An
 * admin's export goes to the admin's DM alone. `tsuka audit --json`, run while the app holds the
 * data folder, lists the approval decision and the admin's export.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';
import { main } from '../../../src/cli/main.js';
import type { RunRecord } from '../../../src/core/store/run-types.js';

const SECRET_FACT = 'the vault code is 7741';
/** Words of the private run that must never be shown in C_GENERAL to a member. */
const PRIVATE_WORDS = ['vault', '7741', 'rotate the vault keys'];

let harness: SlackHarness;
let privateRun: RunRecord;

beforeAll(async () => {
  harness = await startSlackHarness();
  harness.model.enqueue({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] });
  harness.model.enqueue({ text: `Done — ${SECRET_FACT}.` });
  const secret = await harness.slack.mention({ userId: 'U2', channelId: 'C_PRIVATE', text: `<@${harness.slack.botUserId}> geordi rotate the vault keys` });
  await harness.slack.waitFor(() =>
    harness.botReplies('C_PRIVATE', secret.ts).some((message) => message.text.includes('7741') && buttonsOf(message).length === 0),
  );
  harness.model.enqueue({ text: 'General answer.' });
  const general = await harness.slack.mention({ userId: 'U1', channelId: 'C_GENERAL', text: `<@${harness.slack.botUserId}> geordi lint the repo` });
  await harness.slack.waitFor(() =>
    harness.botReplies('C_GENERAL', general.ts).some((message) => message.text.includes('General answer.') && buttonsOf(message).length === 0),
  );
  privateRun = (await harness.app.engine.runs.list()).find((run) => run.where.channelId.endsWith('/C_PRIVATE'))!;
  expect(privateRun).toBeDefined();
}, 60_000);

afterAll(async () => {
  await harness?.stop();
});

/** `/tsuka <text>` typed in `channel`; resolves to the ephemeral answer. */
async function tsuka(text: string, userId: string, channel = 'C_GENERAL'): Promise<string> {
  const delivery = await harness.slack.deliverSlashCommand({ command: '/tsuka', text, userId, channelId: channel });
  const id = delivery.responseUrl.split('/').at(-1);
  await harness.slack.waitFor(() => harness.slack.responses.some((response) => response.id === id));
  const body = harness.slack.responses.find((response) => response.id === id)!.body as { text: string; response_type?: string };
  expect(body.response_type).toBe('ephemeral');
  return body.text;
}

/** Everything the emulator recorded for C_GENERAL: messages (with their edit history), ephemerals, uploads. */
function shownInGeneral(): string {
  return [
    ...harness.slack.messages('C_GENERAL').flatMap((message) => [...message.history, JSON.stringify(message.blocks ?? [])]),
    ...harness.slack.ephemerals.filter((ephemeral) => ephemeral.channel === 'C_GENERAL').map((ephemeral) => ephemeral.text),
    ...harness.slack.files.filter((file) => file.channel === 'C_GENERAL').map((file) => `${file.title}\n${file.content}`),
  ].join('\n');
}

describe('Slack: runs belong to their channel', () => {
  it('a member in C_GENERAL cannot list, export or trace the private run; nothing of it is posted there', async () => {
    const listed = await tsuka('runs', 'U1');
    expect(listed).toMatch(/lint the repo/);
    expect(listed).not.toContain(privateRun.id);
    const exported = await tsuka(`export ${privateRun.id}`, 'U1');
    expect(exported).toBe(`No run ${privateRun.id} in this channel.`);
    const traced = await tsuka(`trace ${privateRun.id}`, 'U1');
    expect(traced).toBe(`No run ${privateRun.id} in this channel.`);
    // Every answer to the member, and everything recorded for C_GENERAL, is free of the private run.
    const answers = [listed, exported, traced].join('\n');
    const shown = shownInGeneral();
    for (const word of PRIVATE_WORDS) {
      expect(answers).not.toContain(word);
      expect(shown).not.toContain(word);
    }
    expect(harness.slack.files).toEqual([]);
  });

  it("an admin's export of the private run goes to the admin's DM alone, never into C_GENERAL", async () => {
    const answer = await tsuka(`export ${privateRun.id}`, 'UADMIN');
    expect(answer).toMatch(/another channel: its transcript \(Markdown\) was sent to you in a direct message/);
    await harness.slack.waitFor(() => harness.slack.directChannelOf('UADMIN') !== undefined && harness.slack.files.length > 0);
    const dm = harness.slack.directChannelOf('UADMIN')!;
    expect(dm).toMatch(/^D/);
    expect(harness.slack.files).toHaveLength(1);
    expect(harness.slack.files[0]).toMatchObject({ channel: dm, name: `${privateRun.id}.md` });
    expect(harness.slack.files[0]!.content).toContain('7741');
    const shown = shownInGeneral();
    for (const word of PRIVATE_WORDS) expect(shown).not.toContain(word);
    // In its own channel, a member still exports it there, as before.
    expect(await tsuka(`export ${privateRun.id}`, 'U2', 'C_PRIVATE')).toMatch(/Uploaded the transcript/);
    await harness.slack.waitFor(() => harness.slack.files.some((file) => file.channel === 'C_PRIVATE'));
  });

  it('tsuka audit --json, run beside the running app, lists the approval decision and the admin export', async () => {
    harness.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes/plan.md', content: '# Plan\n' } }] });
    harness.model.enqueue({ text: 'Written.' });
    const mention = await harness.slack.mention({ userId: 'U1', channelId: 'C_GENERAL', text: `<@${harness.slack.botUserId}> geordi write the plan` });
    await harness.slack.waitFor(() =>
      harness.botReplies('C_GENERAL', mention.ts).some((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve')),
    );
    const prompt = harness.botReplies('C_GENERAL', mention.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'))!;
    const approve = buttonsOf(prompt).find((button) => button.action_id === 'tsuka_approve')!;
    await harness.slack.deliverBlockAction({
      userId: 'U1',
      channelId: 'C_GENERAL',
      messageTs: prompt.ts,
      threadTs: prompt.thread_ts,
      actionId: 'tsuka_approve',
      value: approve.value,
    });
    await harness.slack.waitFor(() =>
      harness.botReplies('C_GENERAL', mention.ts).some((message) => message.text.includes('Written.') && buttonsOf(message).length === 0),
    );

    let out = '';
    let err = '';
    const io = {
      stdout: (text: string) => void (out += text),
      stderr: (text: string) => void (err += text),
      environment: { TSUKA_DATA_DIR: path.join(harness.home, 'data'), TSUKA_WORKSPACE: harness.workspace },
      workingDirectory: harness.home,
    };
    expect(await main(['audit', '--json', '--since', '1h'], io), err).toBe(0);
    const entries = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toContainEqual(
      expect.objectContaining({
        type: 'approval',
        decision: 'approved',
        actor: 'slack:U1',
        tool: 'write_file',
        requester: 'slack:U1',
        where: expect.objectContaining({ platform: 'slack', channelId: `slack:${harness.slack.teamId}/C_GENERAL` }),
        at: expect.any(Number),
      }),
    );
    expect(entries).toContainEqual(
      expect.objectContaining({
        type: 'admin-action',
        action: 'export',
        actor: 'slack:UADMIN',
        runId: privateRun.id,
        runWhere: expect.objectContaining({ channelId: privateRun.where.channelId }),
      }),
    );
    out = '';
    expect(await main(['audit', '--since', '2999-01-01'], io)).toBe(0);
    expect(out).toBe('Nothing in the audit log since then.\n');
  });
});
