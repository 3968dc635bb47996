/**
 * Issue 23 on Discord, end to end: a tag-in reads the thread (and a reply reads the message it
 * answers), attachments reach the model and the workspace inbox (downloaded from the emulator's
 * CDN), images go to a vision model as image parts or the thread is told, and a DM is answered.
 * One app for the whole file.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANA, BEN, buttonsOf, startDiscordHarness, type DiscordHarness } from './discord-harness.js';

type Content = string | { type: string; text?: string; image_url?: { url: string } }[];
interface ModelBody {
  messages: { role: string; content: Content }[];
}

let harness: DiscordHarness;
beforeAll(async () => {
  harness = await startDiscordHarness();
});
afterAll(async () => {
  await harness.stop();
});
beforeEach(() => {
  harness.model.setVision(undefined);
});

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const textOf = (content: Content) => (typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('\n'));

async function nextUserMessage(before: number): Promise<Content> {
  await harness.model.waitForRequests(before + 1);
  const body = harness.model.requests[before]!.body as ModelBody;
  return body.messages.filter((message) => message.role === 'user').at(-1)!.content;
}

describe('Discord: what a teammate would see', () => {
  it('a tag-in inside a thread starts with the thread’s earlier messages, the starter first, other bots marked', async () => {
    const { discord, model } = harness;
    const channelId = discord.defaultChannelId;
    const starter = discord.postUserMessage({ channelId, userId: ANA, content: 'the deploy of api failed again' });
    const threadId = discord.startThread({ channelId, messageId: starter.id, name: 'deploy', userId: ANA });
    // Said before the bot was called in (stored, not dispatched: the bot heard none of it).
    discord.postUserMessage({ channelId: threadId, userId: BEN, content: 'Error: ECONNREFUSED 10.0.0.5:5432', silent: true });
    discord.postUserMessage({
      channelId: threadId,
      userId: '1250000000000000777',
      content: 'Build #42 failed at step migrate',
      authorIsBot: true,
      silent: true,
    });
    const before = model.requests.length;
    model.enqueue({ text: 'The database refused connections.' });
    harness.mention({ channelId: threadId, userId: BEN, content: 'geordi what went wrong here?' });
    const content = textOf(await nextUserMessage(before));
    await harness.waitForReply(threadId, 'The database refused connections.');
    const order = ['the deploy of api failed again', 'ECONNREFUSED 10.0.0.5:5432', 'Build #42 failed at step migrate', 'what went wrong here?'].map((text) =>
      content.indexOf(text),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(content).toMatch(/\[bot of another app\]: Build #42/);
  });

  it('a mention replying to a message brings the message replied to', async () => {
    const { discord, model } = harness;
    const channelId = discord.defaultChannelId;
    const original = discord.postUserMessage({ channelId, userId: ANA, content: 'disk usage on db-1 is at 99%' });
    const before = model.requests.length;
    model.enqueue({ text: 'Yes, clean it up.' });
    const reply = discord.postUserMessage({ channelId, userId: BEN, content: 'geordi is that bad?', mentionsBot: true, replyTo: original.id });
    const content = textOf(await nextUserMessage(before));
    await harness.waitForReply(reply.id, 'Yes, clean it up.');
    expect(content).toContain('disk usage on db-1 is at 99%');
    expect(content.indexOf('disk usage')).toBeLessThan(content.indexOf('is that bad?'));
  });

  it('a text attachment reaches the model and is saved in the inbox', async () => {
    const { discord, model } = harness;
    const before = model.requests.length;
    model.enqueue({ text: 'The disk is full.' });
    const message = discord.postUserMessage({
      channelId: discord.defaultChannelId,
      userId: ANA,
      content: 'geordi why did it stop?',
      mentionsBot: true,
      files: [{ filename: 'app.log', contentType: 'text/plain; charset=utf-8', content: '12:01 ERROR: disk full on /var/lib/postgres\n' }],
    });
    const content = textOf(await nextUserMessage(before));
    await harness.waitForReply(message.id, 'The disk is full.');
    expect(content).toContain('ERROR: disk full on /var/lib/postgres');
    const inbox = path.join(harness.workspace, '.tsuka', 'inbox');
    const saved = (await readdir(inbox)).find((name) => name.endsWith('-app.log'));
    expect(await readFile(path.join(inbox, saved!), 'utf8')).toContain('disk full');
  });

  it('a file with a hostile name is saved inside the inbox under a sanitised name', async () => {
    const { discord, model } = harness;
    const before = model.requests.length;
    model.enqueue({ text: 'A config file.' });
    const message = discord.postUserMessage({
      channelId: discord.defaultChannelId,
      userId: ANA,
      content: 'geordi look',
      mentionsBot: true,
      files: [{ filename: '..\\..\\.bashrc', contentType: 'text/plain', content: 'alias ls="rm -rf"\n' }],
    });
    const content = textOf(await nextUserMessage(before));
    await harness.waitForReply(message.id, 'A config file.');
    const inbox = await readdir(path.join(harness.workspace, '.tsuka', 'inbox'));
    const saved = inbox.find((name) => name.endsWith('bashrc'));
    expect(saved).toMatch(/^\d{4}-\d{2}-\d{2}-bashrc$/);
    expect(content).toContain(`.tsuka/inbox/${saved}`);
    expect(await readdir(harness.home)).not.toContain('.bashrc');
  });

  it('an image goes to a vision model as an image part; without vision the thread is told and none is sent', async () => {
    const { discord, model } = harness;
    model.setVision(true);
    let before = model.requests.length;
    model.enqueue({ text: 'A red dot.' });
    const seen = discord.postUserMessage({
      channelId: discord.defaultChannelId,
      userId: ANA,
      content: 'geordi what is this?',
      mentionsBot: true,
      files: [{ filename: 'dot.png', contentType: 'image/png', content: PNG }],
    });
    const withVision = await nextUserMessage(before);
    await harness.waitForReply(seen.id, 'A red dot.');
    const image = (withVision as Exclude<Content, string>).find((part) => part.type === 'image_url');
    expect(image?.image_url?.url).toBe(`data:image/png;base64,${PNG.toString('base64')}`);

    model.setVision(false);
    before = model.requests.length;
    model.enqueue({ text: 'I cannot see it.' });
    const unseen = discord.postUserMessage({
      channelId: discord.defaultChannelId,
      userId: ANA,
      content: 'geordi and this one?',
      mentionsBot: true,
      files: [{ filename: 'chart.png', contentType: 'image/png', content: PNG }],
    });
    const withoutVision = await nextUserMessage(before);
    await harness.waitForReply(unseen.id, 'I cannot see it.');
    expect(typeof withoutVision).toBe('string');
    expect(harness.botReplies(unseen.id).filter((message) => message.content.includes('cannot see images'))).toHaveLength(1);
  });

  it('a direct message is answered by the default character in the DM', async () => {
    const { discord, model } = harness;
    const dm = discord.openDirectChannel(ANA);
    model.enqueue({ text: 'Hello from your DM.' });
    discord.postUserMessage({ channelId: dm, userId: ANA, content: 'hi, can you help me?' });
    await discord.waitFor(
      () => discord.messages(dm).find((message) => message.authorId === discord.botUserId && message.content.includes('Hello from your DM.')),
      {
        timeoutMs: 10_000,
      },
    );
    const request = model.requests.at(-1)!.body as ModelBody;
    expect(textOf(request.messages.at(-1)!.content)).toBe('hi, can you help me?');

    // Same tools and approvals as in a channel: the card comes in the DM and the person decides.
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'dm-notes.md', content: '# from a DM\n' } }] });
    model.enqueue({ text: 'Written.' });
    discord.postUserMessage({ channelId: dm, userId: ANA, content: 'write my notes please' });
    const card = await discord.waitFor(
      () => discord.messages(dm).find((message) => buttonsOf(message).some((button) => button.custom_id.startsWith('tsuka_approve:'))),
      {
        timeoutMs: 10_000,
      },
    );
    const approve = buttonsOf(card).find((button) => button.custom_id.startsWith('tsuka_approve:'))!;
    await (await discord.clickButton({ messageId: card.id, customId: approve.custom_id, userId: ANA, channelId: dm })).responded;
    await discord.waitFor(() => discord.messages(dm).find((message) => message.content.includes('Written.')), { timeoutMs: 10_000 });
    expect(await readFile(path.join(harness.workspace, 'dm-notes.md'), 'utf8')).toBe('# from a DM\n');
  });
});
