/**
 * Issue 35 (a), in the default set-up (`default-slack.ts`): someone attaches a file to a message
 * for the bot — Slack's app_mention carries the file object, its `url_private_download` fetched
 * with the bot token — and then asks a /goal whose two parallel steps each read that file with a
 * tool. Parallel steps work in staging copies; the chat inbox (`.tsuka/inbox`) reaches them
 * read-only, and the run finishes with both steps' findings.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReplySpec } from '../../support/scripted-model-server.js';
import type { SlackHarness } from '../slack/slack-harness.js';
import { callers, click, expectDefaultSandbox, scriptGoal, startDefaultSlackHarness, startGoal, toolOutputs, waitForButton } from './default-slack.js';

let h: SlackHarness;
beforeAll(async () => {
  h = await startDefaultSlackHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const NOTES = '# Release 4.2\n- the login page loads twice as fast\n- exports keep their time zone\n';

/** A step's last answer, as a model that read the tool results would give it: the line it found, quoted. */
function quoting(who: string): (body: unknown) => ScriptedReplySpec {
  return (body) => {
    const read = ((body as { messages: { role: string; content: string }[] }).messages ?? [])
      .filter((message) => message.role === 'tool')
      .map((message) => message.content)
      .join('\n');
    const line = /login page[^\n]*/.exec(read)?.[0] ?? 'nothing could be read';
    return { text: `${who} read the notes: “${line}”\nSTATUS: COMPLETED — ${who} read the notes` };
  };
}

describe('default set-up: a file attached in Slack, then a /goal whose parallel steps read it', () => {
  it('both parallel steps read the attachment from the inbox with a tool, and the run finishes with both results', async () => {
    expectDefaultSandbox(h);
    const { slack, model } = h;
    const file = slack.shareFile({ name: 'release-notes.md', mimetype: 'text/markdown', content: NOTES });
    model.enqueue({ text: 'Got your release notes.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: `<@${slack.botUserId}> geordi here are the release notes`, files: [file] });
    await slack.waitFor(() => h.botReplies('C1', mention.ts).some((message) => message.text.includes('Got your release notes.')), { timeoutMs: 20_000 });
    expect(slack.fileRequests.some((request) => request.authorized && request.path.includes('release-notes.md'))).toBe(true);
    const saved = (await readdir(path.join(h.workspace, '.tsuka', 'inbox'))).filter((name) => name.endsWith('-release-notes.md'));
    expect(saved).toHaveLength(1);
    const attachment = `.tsuka/inbox/${saved[0]}`;

    const before = model.requests.length;
    scriptGoal(h, {
      plan: [{ text: 'PARALLEL:\nAGENT: @geordi — Summarise the attached release notes\nAGENT: @data — Check the attached release notes\nEND PARALLEL\nEND' }],
      'step:1': [{ toolCalls: [{ name: 'read_file', arguments: { path: attachment } }] }, quoting('Geordi')],
      'step:2': [{ toolCalls: [{ name: 'read_file', arguments: { path: attachment, offset: 2 } }] }, quoting('Data')],
    });
    const root = await startGoal(h, 'C1', 'summarise and check the attached release notes');
    // The default: the plan card waits for Run plan.
    const card = await waitForButton(h, 'C1', root, 'tsuka_plan_run');
    expect(callers(h, before)).toEqual(['plan']);
    await click(h, 'C1', card, 'tsuka_plan_run');
    await slack.waitFor(() => h.botReplies('C1', root.ts).some((message) => message.text.includes('Goal completed')), { timeoutMs: 30_000 });

    expect(callers(h, before).sort()).toEqual(['plan', 'step:1', 'step:1', 'step:2', 'step:2']);
    for (const step of ['step:1', 'step:2']) {
      const [read] = toolOutputs(h, step, before);
      expect(read, step).toContain('the login page loads twice as fast');
      expect(read, step).not.toMatch(/does not exist|outside the workspace/);
    }
    const thread = h.botReplies('C1', root.ts);
    const said = (who: string) => thread.find((message) => message.username === who && message.text.includes('read the notes'))?.text ?? '';
    expect(said('Geordi')).toContain('Geordi read the notes: “login page loads twice as fast”');
    expect(said('Data')).toContain('Data read the notes: “login page loads twice as fast”');
    // The inbox copies are not changes of the steps: nothing is merged, the inbox holds the one file.
    expect(thread.some((message) => message.text.includes('🔀 Merge: the parallel steps changed no file.'))).toBe(true);
    const final = thread.find((message) => message.text.startsWith('✅ Goal completed'))!;
    expect(final.text).toMatch(/^✅ Goal completed\.\n2 step\(s\) done · 1 merge\(s\), 0 conflict\(s\)/);
    expect(await readdir(path.join(h.workspace, '.tsuka', 'inbox'))).toEqual(saved);
    const run = (await h.app.engine.runs.list()).find((record) => record.where.threadId?.endsWith(root.ts));
    expect(run?.status).toBe('completed');
  }, 60_000);
});
