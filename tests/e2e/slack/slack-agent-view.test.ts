/**
 * Issue 37, first part, end to end: Slack's Agent messaging experience (agent_view). Opening the
 * Messages tab offers the characters as suggested prompts (without a thread_ts: Slack ignores one
 * there); what the person is looking at (app_context_changed) reaches their next DM turn's prompt,
 * ids only and once; each DM message is answered in its own thread. An app still on the assistant
 * view keeps working, and doctor says what to change. One app for the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackHarness, type SlackHarness } from './slack-harness.js';
import { runDoctor } from '../../../src/cli/doctor-command.js';
import { testAppConfig } from '../../support/test-app-config.js';

type Content = string | { type: string; text?: string }[];
interface ModelBody {
  messages: { role: string; content: Content }[];
}

let harness: SlackHarness;
beforeAll(async () => {
  harness = await startSlackHarness({ emulator: { messagingView: 'agent' } });
  harness.slack.defineChannel({ id: 'D0ANA', isIm: true, members: [harness.slack.botUserId, 'U1'] });
});
afterAll(async () => {
  await harness.stop();
});

const textOf = (content: Content) => (typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('\n'));

/** The last user message of the model request made after `before` requests, once it has come. */
async function nextUserMessage(before: number): Promise<string> {
  await harness.model.waitForRequests(before + 1);
  const body = harness.model.requests[before]!.body as ModelBody;
  return textOf(body.messages.filter((message) => message.role === 'user').at(-1)!.content);
}

async function replied(channel: string, threadTs: string, text: string): Promise<void> {
  await harness.slack.waitFor(() => harness.botReplies(channel, threadTs).some((message) => message.text.includes(text)), { timeoutMs: 10_000 });
}

/** `tsuka doctor` on the running app's data folder and Slack. */
async function doctor(): Promise<string> {
  let output = '';
  await runDoctor({
    io: { stdout: (text) => (output += text), stderr: (text) => (output += text), environment: {}, workingDirectory: harness.home },
    config: testAppConfig(harness.home, harness.model.baseURL, {
      SLACK_BOT_TOKEN: harness.slack.botToken,
      SLACK_APP_TOKEN: harness.slack.appToken,
      SLACK_API_URL: harness.slack.apiUrl,
      TSUKA_SANDBOX: 'none',
    }),
  });
  return output;
}

describe('Slack: the Agent messaging experience', () => {
  it('opening the Messages tab offers the characters as suggested prompts, for the conversation (no thread_ts, which Slack would ignore)', async () => {
    const { slack } = harness;
    await slack.openMessagesTab({ userId: 'U1', channelId: 'D0ANA' });
    await slack.waitFor(() => slack.suggestedPrompts.length === 1);
    const [offered] = slack.suggestedPrompts;
    expect(offered).toEqual({ channel: 'D0ANA', title: 'Ask a character', prompts: expect.any(Array) });
    expect(offered!.prompts[0]).toEqual({ title: 'Ask Geordi', message: '@geordi what can you do?' });
    expect(offered!.prompts.length).toBeLessThanOrEqual(4);
    expect(slack.ignoredSuggestedPrompts).toEqual([]);
    expect(await doctor()).toMatch(/✓ Slack messaging experience: the agent view \(its events arrived, last at \d{4}-\d\d-\d\dT/);
  });

  it('what the person looks at reaches their next DM turn (ids only, once), each DM message answered in its own thread', async () => {
    const { slack, model } = harness;
    await slack.changeAppContext({
      userId: 'U1',
      channelId: 'D0ANA',
      entities: [
        { type: 'slack#/types/channel_id', value: 'C0DEPLOY' },
        { type: 'slack#/types/message_context', value: { channel_id: 'C0DEPLOY', message_ts: '1782770400.000100' } },
      ],
    });
    // Someone else's context is theirs: it does not reach U1's turn.
    await slack.changeAppContext({ userId: 'U2', channelId: 'D0BEN', entities: [{ type: 'slack#/types/canvas_id', value: 'F0SECRET' }] });
    model.enqueue({ text: 'That channel had a failed deploy.' });
    const before = model.requests.length;
    const first = await slack.directMessage({ userId: 'U1', channelId: 'D0ANA', text: 'what happened here?' });
    const prompt = await nextUserMessage(before);
    // Each message a thread root: the answer is in the thread of that message.
    await replied('D0ANA', first.ts, 'That channel had a failed deploy.');
    expect(prompt).toContain('what happened here?');
    expect(prompt).toContain('- the channel C0DEPLOY');
    expect(prompt).toContain('- the message 1782770400.000100 in the channel C0DEPLOY');
    expect(prompt).toMatch(/<untrusted source="what the person is looking at in Slack">[\s\S]*C0DEPLOY[\s\S]*<\/untrusted>/);
    expect(prompt).not.toContain('F0SECRET');

    // Given once: the next DM, with no new context, carries none.
    model.enqueue({ text: 'Anything else?' });
    const again = model.requests.length;
    const second = await slack.directMessage({ userId: 'U1', channelId: 'D0ANA', text: 'thanks' });
    const next = await nextUserMessage(again);
    await replied('D0ANA', second.ts, 'Anything else?');
    expect(next).toContain('thanks');
    expect(next).not.toContain('C0DEPLOY');
  });

  it('an app still on the assistant view keeps working (prompts in its thread, the first message answered there), and doctor says what to change', async () => {
    const { slack, model } = harness;
    slack.setMessagingView('assistant');
    slack.defineChannel({ id: 'D0CAT', isIm: true, members: [slack.botUserId, 'U3'] });
    const prompts = slack.suggestedPrompts.length;
    const opened = await slack.startAssistantThread({ userId: 'U3', channelId: 'D0CAT', contextChannelId: 'C1' });
    await slack.waitFor(() => slack.suggestedPrompts.length === prompts + 1);
    expect(slack.suggestedPrompts.at(-1)).toMatchObject({ channel: 'D0CAT', thread_ts: opened.threadTs });
    model.enqueue({ text: 'Still here.' });
    await slack.directMessage({ userId: 'U3', channelId: 'D0CAT', threadTs: opened.threadTs, text: 'are you there?' });
    await replied('D0CAT', opened.threadTs, 'Still here.');

    const output = await doctor();
    expect(output).toMatch(/· ⚠ Slack messaging experience: the app is on the assistant view \(assistant_thread_started arrived/);
    expect(output).toContain('replace features.assistant_view with features.agent_view and an agent_description');
    expect(output).toContain('replace assistant_thread_started with app_home_opened and app_context_changed');
    const warnings = () => harness.logs.join('\n').match(/assistant view [^\n]*which Slack retires/g)?.length ?? 0;
    expect(warnings()).toBe(1);
    // A restart says it again at start, from what was recorded.
    await harness.restartApp();
    expect(warnings()).toBe(2);
  });
});
