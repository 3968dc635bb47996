/**
 * Issue 39 on the Slack emulator, one app: the approval policy as configuration. In the infra
 * workspace (team T0TEAM) a DANGEROUS `kubectl delete` meets the rule "infra-kubectl": 2 approvals
 * from the Slack user group S0OPS (read with usergroups.users.list). A non-member's Approve is
 * refused, the requester never counts, the first member's approval leaves the card pending with
 * "1 of 2 approvals", the second distinct member's approval lets the call run; the audit entry
 * names the rule and both approvers.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';

let harness: SlackHarness;
beforeAll(async () => {
  harness = await startSlackHarness({
    configFile: () => ({
      policy: {
        groups: { ops: { slackUsergroup: 'S0OPS' } },
        rules: [{ name: 'infra-kubectl', workspace: 'slack:T0TEAM', command: 'kubectl delete *', approval: { group: 'ops', required: 2 } }],
        default: { approval: 'channel' },
      },
    }),
  });
  harness.slack.defineUsergroup('S0OPS', ['U1', 'U2', 'U3']);
});
afterAll(async () => {
  await harness?.stop();
});

function click(channel: string, card: { ts: string; thread_ts?: string; blocks?: unknown[] }, actionId: string, userId: string) {
  const button = buttonsOf(card).find((candidate) => candidate.action_id === actionId)!;
  return harness.slack.deliverBlockAction({ userId, channelId: channel, messageTs: card.ts, threadTs: card.thread_ts, actionId, value: button.value });
}

/** The command line in the app's home (its tsuka.config.json, with the policy section). */
async function cli(argv: string[]): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = {
    stdout: (text: string) => void (out += text),
    stderr: (text: string) => void (err += text),
    environment: { TSUKA_DATA_DIR: path.join(harness.home, 'data'), TSUKA_WORKSPACE: harness.workspace },
    workingDirectory: harness.home,
  };
  const status = await main(argv, io);
  return { status, out, err };
}

const ephemeralTo = (user: string, pattern: RegExp) =>
  harness.slack.waitFor(() => harness.slack.ephemerals.some((message) => message.user === user && pattern.test(message.text)));

describe('approval policy: a 2-of-M rule for kubectl delete in the infra workspace', () => {
  it('refuses a non-member and the requester, counts the first member, passes at the second', async () => {
    const { slack, model } = harness;
    model.enqueue({ toolCalls: [{ name: 'execute_command', arguments: { command: 'kubectl delete pod web-1' } }] });
    model.enqueue((body) => {
      const messages = (body as { messages: { role: string; content: string }[] }).messages;
      return {
        text: `Tool said: ${messages
          .filter((message) => message.role === 'tool')
          .at(-1)!
          .content.slice(0, 200)}`,
      };
    });
    const asked = await slack.mention({ userId: 'U1', channelId: 'C0INFRA', text: `<@${slack.botUserId}> geordi delete the web-1 pod` });
    const card = () => harness.botReplies('C0INFRA', asked.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'));
    await slack.waitFor(() => card() !== undefined);
    const shown = card()!;
    expect(shown.text).toMatch(/DANGEROUS/);
    expect(shown.text).toMatch(/Rule "infra-kubectl": 2 approvals from "ops" \(the Slack user group S0OPS\) \(<@U2>, <@U3>\); <@U1> can deny/);

    await click('C0INFRA', shown, 'tsuka_approve', 'U9');
    await ephemeralTo('U9', /Only members of "ops" \(the Slack user group S0OPS\) can approve this \(rule "infra-kubectl"\)/);
    await click('C0INFRA', shown, 'tsuka_approve', 'U1');
    await ephemeralTo('U1', /You asked for this: 2 approvals/);

    await click('C0INFRA', shown, 'tsuka_approve', 'U2');
    await slack.waitFor(() => /1 of 2 approvals: <@U2>/.test(slack.messages('C0INFRA').find((message) => message.ts === shown.ts)!.text));
    expect(buttonsOf(slack.messages('C0INFRA').find((message) => message.ts === shown.ts)!).length).toBeGreaterThan(0);
    await click('C0INFRA', shown, 'tsuka_approve', 'U2');
    await ephemeralTo('U2', /You already approved this/);
    expect(harness.botReplies('C0INFRA', asked.ts).some((message) => message.text.startsWith('Tool said:'))).toBe(false);

    await click('C0INFRA', shown, 'tsuka_approve', 'U3');
    await slack.waitFor(() => harness.botReplies('C0INFRA', asked.ts).some((message) => message.text.startsWith('Tool said:')));
    await slack.waitFor(() => /Approved by <@U3>/.test(slack.messages('C0INFRA').find((message) => message.ts === shown.ts)!.text));
    const audit = await cli(['audit', '--json', '--since', '1h']);
    expect(audit.status, audit.err).toBe(0);
    const entries = audit.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const entry = entries.find((candidate) => candidate.type === 'approval' && candidate.tool === 'execute_command');
    expect(entry).toMatchObject({ decision: 'approved', rule: 'infra-kubectl', approvedBy: 'slack:U2, slack:U3', actor: 'slack:U3' });
  });
});

describe('tsuka policy explain', () => {
  it('names the rule a command meets in a channel ("default" for the default) and who may decide', async () => {
    const kubectl = await cli(['policy', 'explain', 'kubectl delete ns staging', '--channel', 'slack:T0TEAM/C0INFRA']);
    expect(kubectl.status, kubectl.err).toBe(0);
    expect(kubectl.out).toBe('rule: infra-kubectl\nwho may decide: 2 approvals from "ops" (the Slack user group S0OPS), never the requester\n');
    const elsewhere = await cli(['policy', 'explain', 'kubectl delete ns staging', '--channel', 'slack:T0OTHER/C1']);
    expect(elsewhere.out).toMatch(/^rule: default\nwho may decide: the channel's own rule/);
    const other = await cli(['policy', 'explain', 'git push origin main', '--channel', 'slack:T0TEAM/C0INFRA']);
    expect(other.out).toMatch(/^rule: default\n/);
    const bad = await cli(['policy', 'explain', 'ls', '--channel', 'C0INFRA']);
    expect(bad.status).toBe(2);
    expect(bad.err).toMatch(/is not a channel/);
  });
});
