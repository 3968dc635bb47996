/**
 * Issue 21 through the command layer with real tools: who may approve a DANGEROUS call, thread
 * etiquette, and channels mapped to workspaces of their own.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { APPROVE_ACTION, DENY_ACTION } from '../../../src/commands/approvals/approval-flow.js';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const SHARED = { kind: 'public', name: 'general', members: 5 } as const;

/** Clicks a button of the thread's approval prompt as `user`; resolves to the ephemerals that user got. */
async function click(h: Harness, actionId: string, user: string): Promise<string[]> {
  const prompt = h.surface.messages.find((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION))!;
  const replies: string[] = [];
  await h.send({
    platform: 'playground',
    channel: 'playground:general',
    user,
    fromBot: false,
    type: 'button-action',
    id: `click-${user}-${actionId}-${Math.random()}`,
    actionId,
    value: prompt.buttons.find((button) => button.actionId === APPROVE_ACTION)!.value,
    message: prompt.ref,
    replyEphemeral: async (text) => void replies.push(text),
  });
  return replies;
}

const approvalPrompt = (h: Harness) => h.surface.messages.find((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION))!;
const promptShown = (h: Harness) =>
  h.surface.waitFor(() => h.surface.messages.some((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION)));

describe('who may approve a DANGEROUS call', () => {
  it('in a channel with other people the requester’s own click is refused; a second member’s approval runs it', async () => {
    harness = await startCommandHarness({
      channelInfo: SHARED,
      steps: [callTool('delete_file', { path: 'old.log' }, 'd1'), say('Deleted.')],
    });
    const target = path.join(harness.engine.workspace.root, 'old.log');
    await writeFile(target, 'x');
    await harness.mention('geordi delete old.log', { message: 'root' });
    await promptShown(harness);
    const prompt = approvalPrompt(harness);
    expect(prompt.text).toMatch(/Someone other than <@playground:alice> must approve/);
    const refused = await click(harness, APPROVE_ACTION, 'playground:alice');
    expect(refused.join()).toMatch(/someone else in this channel/);
    await expect(import('node:fs/promises').then((fs) => fs.access(target))).resolves.toBeUndefined();
    expect(await click(harness, APPROVE_ACTION, 'playground:bob')).toEqual([]);
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text.includes('Deleted.')));
    await expect(import('node:fs/promises').then((fs) => fs.access(target))).rejects.toThrow();
  });

  it('the requester may still deny; TSUKA_DANGEROUS_APPROVAL=admin refuses a second member and an admin’s own click', async () => {
    harness = await startCommandHarness({
      channelInfo: SHARED,
      settings: { dangerousApproval: 'admin', admins: ['playground:root', 'playground:alice'] },
      steps: [callTool('delete_file', { path: 'a.txt' }, 'd1'), say('Not deleted.')],
    });
    await harness.mention('geordi delete a.txt', { message: 'root' });
    await promptShown(harness);
    // Issue 35: the card names who may approve — admins other than the requester.
    expect(approvalPrompt(harness).text).toMatch(/Only an admin other than <@playground:alice> can approve \(<@playground:root>\)/);
    expect((await click(harness, APPROVE_ACTION, 'playground:bob')).join()).toMatch(/needs an admin/);
    // The requester is an admin too: no one approves their own DANGEROUS call.
    expect((await click(harness, APPROVE_ACTION, 'playground:alice')).join()).toMatch(/another admin must approve/);
    expect(await click(harness, DENY_ACTION, 'playground:alice')).toEqual([]);
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => /Denied by <@playground:alice>/.test(message.text)));
  });

  it('in a DM on the shared workspace the requester alone cannot approve; in a DM with a workspace of its own the requester decides', async () => {
    harness = await startCommandHarness({
      channelInfo: { kind: 'dm', members: 2 },
      settings: { admins: ['playground:root'] },
      steps: [callTool('delete_file', { path: 'b.txt' }, 'd1'), say('Not deleted.')],
    });
    const shared = path.join(harness.engine.workspace.root, 'b.txt');
    await writeFile(shared, 'b');
    await harness.mention('geordi delete b.txt', { message: 'root' });
    await promptShown(harness);
    expect(approvalPrompt(harness).text).toMatch(
      /workspace other channels share, so someone other than <@playground:alice> must approve — an admin \(<@playground:root>\)/,
    );
    expect((await click(harness, APPROVE_ACTION, 'playground:alice')).join()).toMatch(/someone else/);
    expect(await click(harness, DENY_ACTION, 'playground:alice')).toEqual([]);
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text.includes('Not deleted.')));
    await expect(import('node:fs/promises').then((fs) => fs.access(shared))).resolves.toBeUndefined();
    await harness.stop();

    const own = await import('node:fs/promises').then((fs) => fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-dm-own-')));
    harness = await startCommandHarness({
      channelInfo: { kind: 'dm', members: 2 },
      settings: { channelPolicies: [{ key: 'playground:general', workspace: own }] },
      steps: [callTool('delete_file', { path: 'b.txt' }, 'd1'), say('Done.')],
    });
    await writeFile(path.join(own, 'b.txt'), 'b');
    await harness.mention('geordi delete b.txt', { message: 'root' });
    await promptShown(harness);
    expect(approvalPrompt(harness).text).toMatch(/Only <@playground:alice> or an admin can decide/);
    expect(await click(harness, APPROVE_ACTION, 'playground:alice')).toEqual([]);
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text.includes('Done.')));
    await expect(import('node:fs/promises').then((fs) => fs.access(path.join(own, 'b.txt')))).rejects.toThrow();
  });
});

describe('thread etiquette', () => {
  it('two colleagues talking in the bot’s thread start no turn; their words reach the next turn; naming the character is answered', async () => {
    harness = await startCommandHarness({ channelInfo: SHARED, steps: [say('First answer.'), say('Second answer.')] });
    await harness.mention('geordi why did the deploy fail?', { message: 'root' });
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text === 'First answer.'));
    await harness.threadMessage('thread:root', '@alice did you see the deploy? it says ERR_DISK_FULL', { user: 'playground:bob', userName: 'bob' });
    await harness.threadMessage('thread:root', 'yes, the disk on web-2', { user: 'playground:carol', userName: 'carol' });
    expect(harness.model.requests).toHaveLength(1);
    expect(harness.surface.messages.filter((message) => message.text.includes('answer'))).toHaveLength(1);
    await harness.threadMessage('thread:root', 'geordi what should we clean first?', { user: 'playground:bob', userName: 'bob' });
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text === 'Second answer.'));
    const asked = JSON.stringify(harness.model.requests[1]!.messages.at(-1));
    expect(asked).toContain('ERR_DISK_FULL');
    expect(asked).toContain('the disk on web-2');
    expect(asked).toContain('what should we clean first?');
  });

  it('the starter is answered without naming anyone; threadReplies=everyone answers all', async () => {
    harness = await startCommandHarness({ channelInfo: SHARED, settings: { threadReplies: 'everyone' }, steps: [say('One.'), say('Two.'), say('Three.')] });
    await harness.mention('geordi hi', { message: 'root' });
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text === 'One.'));
    await harness.threadMessage('thread:root', 'and then?');
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text === 'Two.'));
    await harness.threadMessage('thread:root', 'me too', { user: 'playground:bob' });
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text === 'Three.'));
  });
});

describe('channels with workspaces and characters of their own', () => {
  it('two channels mapped to two workspaces cannot read each other’s files; a character not allowed there is refused', async () => {
    const base = await import('node:fs/promises').then((fs) => fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-channels-')));
    const secOps = path.join(base, 'sec');
    const web = path.join(base, 'web');
    await mkdir(secOps, { recursive: true });
    await writeFile(path.join(secOps, 'vault.txt'), 'vault code 4242');
    harness = await startCommandHarness({
      settings: {
        channelPolicies: [
          { key: 'playground:sec', workspace: secOps },
          { key: 'general', workspace: web, characters: ['geordi', 'data'], defaultCharacter: 'data' },
        ],
      },
      steps: [
        callTool('read_file', { path: 'vault.txt' }, 'r1'),
        say('I cannot read it.'),
        callTool('read_file', { path: 'vault.txt' }, 'r2'),
        say('Read it.'),
      ],
    });
    await harness.mention('geordi read vault.txt', { message: 'root', channel: 'playground:general' });
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text.includes('I cannot read it.')));
    const generalResult = JSON.stringify(harness.model.requests[1]!.messages.at(-1));
    expect(generalResult).not.toContain('4242');
    await harness.mention('geordi read vault.txt', { message: 'root2', channel: 'playground:sec' });
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text.includes('Read it.')));
    expect(JSON.stringify(harness.model.requests[3]!.messages.at(-1))).toContain('4242');

    await harness.mention('worf audit this', { message: 'root3', channel: 'playground:general' });
    await harness.surface.waitFor(() =>
      harness!.surface.ephemerals.some((message) => /Worf is not available in this channel\. Here: geordi, data/.test(message.text)),
    );
    expect(harness.model.requests).toHaveLength(4);
  });
});
