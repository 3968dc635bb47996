/**
 * The contract every chat adapter passes (style.md §2), run against the whole app with the real
 * platform library (or the playground's own HTTP API) and the scripted model server:
 * thread ids round-trip, the bot ignores itself and other bots, long text splits at the platform
 * limit without breaking code fences, and a button decides only its own approval.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedModelServer } from '../support/scripted-model-server.js';

export interface ContractButton {
  actionId: string;
  value: string;
  label: string;
}

export interface ContractMessage {
  text: string;
  buttons: ContractButton[];
}

/** What a platform's test supplies: a running app on that platform, driven as its users would. */
export interface ContractDriver {
  model: ScriptedModelServer;
  /** The longest part the adapter may post. */
  maxMessageLength: number;
  /** A user mentions the bot with `text` (e.g. `geordi hello`) at the top of a channel; returns a key for its thread. */
  mention(user: string, text: string): Promise<string>;
  /** A user writes in that thread without mentioning the bot. */
  reply(threadKey: string, user: string, text: string): Promise<void>;
  /** Another bot (or this bot's own identity) mentions the bot. */
  mentionFromBot(text: string): Promise<void>;
  /** The bot's messages in the thread, oldest first, as they are now. */
  botMessages(threadKey: string): ContractMessage[];
  /** Clicks a button of one of the bot's messages in the thread. */
  click(threadKey: string, message: ContractMessage, button: ContractButton, user: string): Promise<void>;
  /** Resolves when `predicate` holds; rejects on timeout. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

function fencesBalanced(text: string): boolean {
  return text.split('\n').filter((line) => /^\s*```/.test(line)).length % 2 === 0;
}

const settled = (message: ContractMessage) => message.buttons.length === 0;

export function chatSurfaceContract(platform: string, createDriver: () => Promise<ContractDriver>): void {
  describe(`chat-surface contract: ${platform}`, () => {
    let driver: ContractDriver;
    beforeEach(async () => {
      driver = await createDriver();
    });
    afterEach(async () => {
      await driver.stop();
    });

    it("thread ids round-trip: the reply lands in the mention's thread and a follow-up there continues the session", async () => {
      driver.model.enqueue({ text: 'first reply' });
      const thread = await driver.mention('alice', 'geordi hello there');
      await driver.waitFor(() => driver.botMessages(thread).some((message) => message.text.includes('first reply') && settled(message)));
      driver.model.enqueue({ text: 'second reply' });
      await driver.reply(thread, 'alice', 'and then?');
      await driver.waitFor(() => driver.botMessages(thread).some((message) => message.text.includes('second reply') && settled(message)));
      const second = driver.model.requests[1]!.body as { messages: { content: string }[] };
      expect(second.messages.map((message) => message.content)).toEqual(expect.arrayContaining(['hello there', 'first reply', 'and then?']));
    });

    it('ignores itself and other bots', async () => {
      await driver.mentionFromBot('geordi are you there?');
      driver.model.enqueue({ text: 'human answered' });
      const thread = await driver.mention('alice', 'geordi ping');
      await driver.waitFor(() => driver.botMessages(thread).some((message) => message.text.includes('human answered') && settled(message)));
      expect(driver.model.requests).toHaveLength(1);
    });

    it('splits long text at the platform limit without breaking code fences', async () => {
      const code = Array.from({ length: 400 }, (_, index) => `echo "line ${index}"`).join('\n');
      const text = `Intro paragraph.\n\n\`\`\`sh\n${code}\n\`\`\`\n\nOutro paragraph.`;
      expect(text.length).toBeGreaterThan(driver.maxMessageLength);
      driver.model.enqueue({ text, chunkSize: 700 });
      const thread = await driver.mention('alice', 'geordi print the script');
      await driver.waitFor(() => driver.botMessages(thread).some((message) => message.text.includes('Outro paragraph.') && settled(message)), 15_000);
      const parts = driver.botMessages(thread);
      expect(parts.length).toBeGreaterThan(1);
      for (const part of parts) {
        expect(part.text.length).toBeLessThanOrEqual(driver.maxMessageLength);
        expect(fencesBalanced(part.text)).toBe(true);
      }
      expect(
        new Set(
          parts
            .map((part) => part.text)
            .join('\n')
            .match(/line \d+/g),
        ).size,
      ).toBe(400);
    });

    it('a button decides only its own approval', async () => {
      const asksToWrite = (file: string) => ({ toolCalls: [{ name: 'write_file', arguments: { path: file, content: 'x' } }] });
      const echoResult = (body: unknown) => ({
        text: `result: ${(body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool').at(-1)!.content}`,
      });
      const approvalIn = (thread: string) => driver.botMessages(thread).find((message) => message.buttons.some((button) => button.label === 'Approve'));
      driver.model.enqueue(asksToWrite('a.txt'));
      const first = await driver.mention('alice', 'geordi write a');
      await driver.waitFor(() => approvalIn(first) !== undefined);
      driver.model.enqueue(asksToWrite('b.txt'));
      const second = await driver.mention('alice', 'geordi write b');
      await driver.waitFor(() => approvalIn(second) !== undefined);
      driver.model.enqueue(echoResult);
      const promptA = approvalIn(first)!;
      await driver.click(first, promptA, promptA.buttons.find((button) => button.label === 'Approve')!, 'alice');
      await driver.waitFor(() => driver.botMessages(first).some((message) => message.text.includes('result:') && settled(message)));
      // B is still waiting with its buttons.
      expect(approvalIn(second)?.buttons.map((button) => button.label)).toEqual(['Approve', 'Approve “write_file” for this run', 'Deny']);
      driver.model.enqueue(echoResult);
      const promptB = approvalIn(second)!;
      await driver.click(second, promptB, promptB.buttons.find((button) => button.label === 'Deny')!, 'alice');
      await driver.waitFor(() => driver.botMessages(second).some((message) => message.text.includes('result: Denied') && settled(message)));
      expect(driver.botMessages(first).find((message) => message.text.includes('result:'))!.text).not.toMatch(/Denied/);
    });
  });
}
