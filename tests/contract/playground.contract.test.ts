import { randomUUID } from 'node:crypto';
import { chatSurfaceContract, type ContractMessage } from './chat-surface-contract.js';
import { startPlaygroundHarness } from '../e2e/playground/playground-harness.js';
import { PLAYGROUND_MAX_MESSAGE_LENGTH } from '../../src/adapters/playground/surface.js';
import type { PlaygroundMessage } from '../../src/adapters/playground/state.js';

chatSurfaceContract('playground', async () => {
  const harness = await startPlaygroundHarness();
  const toContract = (message: PlaygroundMessage): ContractMessage => ({
    text: message.text,
    buttons: message.buttons.map(({ actionId, value, label }) => ({ actionId, value, label })),
  });
  const botReplies = (root: string) => harness.thread(root).filter((message) => message.author.kind !== 'user');
  return {
    model: harness.model,
    maxMessageLength: PLAYGROUND_MAX_MESSAGE_LENGTH,
    // The playground has one person; every contract user is that person.
    mention: (_user, text) => harness.say(text),
    async reply(root, _user, text) {
      await harness.say(text, root);
    },
    async mentionFromBot(text) {
      // No other bot can post in the playground, so the only bot message that could come back is
      // TSUKA's own: post one through the surface and hand it to the command layer as the bot.
      const surface = harness.app.surfaces.playground!;
      const own = await surface.postRoot({ channel: 'playground:general', text, threadTitle: text });
      await harness.app.layer.handle(
        {
          type: 'mention',
          id: randomUUID(),
          platform: 'playground',
          channel: 'playground:general',
          user: 'playground:tsuka',
          fromBot: true,
          message: own.message,
          text,
        },
        surface,
      );
    },
    botMessages: (root) => botReplies(root).map(toContract),
    async click(root, message, button) {
      const stored = botReplies(root).find(
        (candidate) => candidate.text === message.text && candidate.buttons.some((offered) => offered.value === button.value),
      )!;
      const answer = await harness.post('/api/actions', { message: stored.id, actionId: button.actionId, value: button.value });
      if (answer.status !== 202) throw new Error(`POST /api/actions answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    },
    waitFor: (predicate, timeoutMs) => harness.waitFor(predicate, timeoutMs ?? 8000),
    stop: () => harness.stop(),
  };
});
