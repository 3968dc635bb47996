import { chatSurfaceContract, type ContractMessage } from './chat-surface-contract.js';
import { buttonsOf, startDiscordHarness } from '../e2e/discord/discord-harness.js';
import { parseCustomId } from '../../src/adapters/discord/cards.js';
import { DISCORD_MAX_MESSAGE_LENGTH } from '../../src/adapters/discord/surface.js';
import type { RecordedMessage } from '../emulators/discord/discord-emulator.js';

chatSurfaceContract('discord', async () => {
  const harness = await startDiscordHarness();
  const { discord } = harness;
  const users = new Map([['alice', '1250000000000000500']]);
  const userId = (user: string) => users.get(user) ?? user;
  const toContract = (message: RecordedMessage): ContractMessage => ({
    text: message.content,
    buttons: buttonsOf(message).map((button) => ({ ...parseCustomId(button.custom_id), label: button.label })),
  });
  return {
    model: harness.model,
    maxMessageLength: DISCORD_MAX_MESSAGE_LENGTH,
    async mention(user, text) {
      // The bot answers in a thread started from the message, whose id is the message's.
      return harness.mention({ userId: userId(user), content: text }).id;
    },
    async reply(threadId, user, text) {
      discord.postUserMessage({ channelId: threadId, userId: userId(user), content: text });
    },
    async mentionFromBot(text) {
      discord.postUserMessage({ channelId: discord.defaultChannelId, userId: '1250000000000000777', content: text, mentionsBot: true, authorIsBot: true });
      discord.postUserMessage({ channelId: discord.defaultChannelId, userId: discord.botUserId, content: text, mentionsBot: true });
    },
    botMessages: (threadId) => harness.botReplies(threadId).map(toContract),
    async click(threadId, message, button, user) {
      const customId = `${button.actionId}:${button.value}`;
      const stored = harness
        .botReplies(threadId)
        .find((candidate) => candidate.content === message.text && buttonsOf(candidate).some((b) => b.custom_id === customId))!;
      await (await discord.clickButton({ messageId: stored.id, customId, userId: userId(user), channelId: threadId })).responded;
    },
    waitFor: async (predicate, timeoutMs) => {
      await discord.waitFor(() => predicate(), { timeoutMs: timeoutMs ?? 8000 });
    },
    stop: () => harness.stop(),
  };
});
