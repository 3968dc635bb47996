import { chatSurfaceContract, type ContractMessage } from './chat-surface-contract.js';
import { buttonsOf, startSlackHarness } from '../e2e/slack/slack-harness.js';
import { SLACK_MAX_MESSAGE_LENGTH } from '../../src/adapters/slack/surface.js';

chatSurfaceContract('slack', async () => {
  const harness = await startSlackHarness();
  const { slack } = harness;
  const users = new Map([['alice', 'UALICE']]);
  const toContract = (message: { text: string; blocks?: unknown[] }): ContractMessage => ({
    text: message.text,
    buttons: buttonsOf(message).map((button) => ({ actionId: button.action_id, value: button.value, label: button.text.text })),
  });
  const replies = (threadTs: string) => harness.botReplies('C1', threadTs);
  return {
    model: harness.model,
    maxMessageLength: SLACK_MAX_MESSAGE_LENGTH,
    async mention(user, text) {
      return (await slack.mention({ userId: users.get(user) ?? user, channelId: 'C1', text: `<@${slack.botUserId}> ${text}` })).ts;
    },
    async reply(threadTs, user, text) {
      await slack.threadMessage({ userId: users.get(user) ?? user, channelId: 'C1', threadTs, text });
    },
    async mentionFromBot(text) {
      await slack.deliverEvent({
        type: 'app_mention',
        user: 'UOTHERBOT',
        bot_id: 'B0OTHER',
        text: `<@${slack.botUserId}> ${text}`,
        ts: '1700000009.000100',
        channel: 'C1',
        event_ts: '1700000009.000100',
      });
      await slack.deliverEvent({
        type: 'app_mention',
        user: slack.botUserId,
        bot_id: slack.botId,
        text: `<@${slack.botUserId}> ${text}`,
        ts: '1700000010.000100',
        channel: 'C1',
        event_ts: '1700000010.000100',
      });
    },
    botMessages: (threadTs) => replies(threadTs).map(toContract),
    async click(threadTs, message, button, user) {
      const stored = replies(threadTs).find((candidate) => candidate.text === message.text && buttonsOf(candidate).some((b) => b.value === button.value))!;
      await slack.deliverBlockAction({
        userId: users.get(user) ?? user,
        channelId: 'C1',
        messageTs: stored.ts,
        threadTs,
        actionId: button.actionId,
        value: button.value,
      });
    },
    waitFor: (predicate, timeoutMs) => slack.waitFor(() => predicate(), { timeoutMs: timeoutMs ?? 8000 }),
    stop: () => harness.stop(),
  };
});
