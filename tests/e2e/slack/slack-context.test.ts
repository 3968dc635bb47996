/**
 * Issue 23 on Slack, end to end: a tag-in reads the thread (conversations.replies), files attached
 * to a mention reach the model and the workspace inbox (private URLs fetched with the bot token),
 * images go to a vision model as image parts or the thread is told, a PDF's text reaches the model
 * (an unreadable one is said in the thread), a tag-in fetches the files of the thread's earlier
 * messages, and a DM is answered. One app for the whole file.
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buttonsOf, startSlackHarness, type SlackHarness } from './slack-harness.js';
import { DEFAULT_SLACK_SCOPES } from '../../emulators/slack/slack-emulator.js';
import { garbagePdf, minimalPdf } from '../../support/minimal-pdf.js';

type Content = string | { type: string; text?: string; image_url?: { url: string } }[];
interface ModelBody {
  messages: { role: string; content: Content }[];
}

let harness: SlackHarness;
/** Another port on the emulator's own host (127.0.0.1) that records the headers it is sent (issue 41). */
let otherPort: Server;
const otherPortHeaders: IncomingHttpHeaders[] = [];
beforeAll(async () => {
  harness = await startSlackHarness();
  otherPort = createServer((request, response) => {
    otherPortHeaders.push(request.headers);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('stolen');
  });
  await new Promise<void>((resolve) => otherPort.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await harness.stop();
  await new Promise<void>((resolve) => otherPort.close(() => resolve()));
});
const otherPortUrl = (file: string) => `http://127.0.0.1:${(otherPort.address() as AddressInfo).port}/files-pri/${file}`;
beforeEach(() => {
  harness.model.setVision(undefined);
});

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** The last user message of the model request made after `before` requests, once it has come. */
async function nextUserMessage(before: number): Promise<Content> {
  await harness.model.waitForRequests(before + 1);
  const body = harness.model.requests[before]!.body as ModelBody;
  return body.messages.filter((message) => message.role === 'user').at(-1)!.content;
}

const textOf = (content: Content) => (typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('\n'));

async function replied(channel: string, threadTs: string, text: string): Promise<void> {
  await harness.slack.waitFor(() => harness.botReplies(channel, threadTs).some((message) => message.text.includes(text)), { timeoutMs: 10_000 });
}

describe('Slack: what a teammate would see', () => {
  it('a tag-in starts with the thread’s earlier messages: who said what, oldest first, masked, other bots marked', async () => {
    const { slack, model } = harness;
    const parent = slack.postUnheard({ userId: 'U1', channelId: 'C1', text: 'the deploy of api failed again' });
    slack.postUnheard({
      userId: 'U2',
      channelId: 'C1',
      threadTs: parent.ts,
      text: `here is the error:\nError: ECONNREFUSED 10.0.0.5:5432\nalso the token ${slack.botToken}`,
    });
    slack.postOtherBot({ botId: 'BCI', username: 'ci-bot', channelId: 'C1', threadTs: parent.ts, text: 'Build #42 failed at step migrate' });
    slack.postUnheard({ userId: 'U1', channelId: 'C2', text: 'secret plans of another channel' });
    const before = model.requests.length;
    model.enqueue({ text: 'The database refused connections.' });
    const mention = await slack.mention({ userId: 'U2', channelId: 'C1', threadTs: parent.ts, text: 'geordi what went wrong here?' });
    const content = textOf(await nextUserMessage(before));
    await replied('C1', parent.ts, 'The database refused connections.');

    const order = ['the deploy of api failed again', 'ECONNREFUSED 10.0.0.5:5432', 'Build #42 failed at step migrate', 'what went wrong here?'].map((text) =>
      content.indexOf(text),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(content).toMatch(/ci-bot \[bot of another app\]: Build #42/);
    expect(content).not.toContain(slack.botToken);
    expect(content).not.toContain('another channel');
    expect(mention.threadTs).toBe(parent.ts);
    expect(slack.calls.some((call) => call.method === 'conversations.replies' && call.body.ts === parent.ts)).toBe(true);
  });

  it('a tag-in into a 1,000-message thread reads only its newest part: windows back from the mention, fewer calls than its pages, the newest 100 in the prompt (issue 42)', async () => {
    const { slack, model } = harness;
    const parent = slack.postUnheard({ userId: 'U1', channelId: 'C1', text: 'a very long incident thread' });
    for (let reply = 1; reply < 1_000; reply += 1)
      slack.postUnheard({ userId: 'U2', channelId: 'C1', threadTs: parent.ts, text: `note-${String(reply).padStart(4, '0')}` });
    const callsBefore = slack.calls.length;
    const before = model.requests.length;
    model.enqueue({ text: 'Read the newest notes.' });
    await slack.mention({ userId: 'U2', channelId: 'C1', threadTs: parent.ts, text: 'geordi sum this up' });
    const content = textOf(await nextUserMessage(before));
    await replied('C1', parent.ts, 'Read the newest notes.');
    const reads = slack.calls.slice(callsBefore).filter((call) => call.method === 'conversations.replies' && call.body.ts === parent.ts);
    expect(reads.length).toBeGreaterThan(0);
    // Read back from the mention, never page by page from the thread's start (the old code's five pages of 200).
    // Two calls on a quiet machine; the windows are aimed by the messages' times, so a loaded machine that
    // spreads the 1,000 posts unevenly may take a third or a fourth.
    expect(reads.every((call) => typeof call.body.latest === 'string')).toBe(true);
    expect(reads.length).toBeLessThan(5);
    const notes = content.match(/note-\d{4}/g) ?? [];
    expect(new Set(notes).size).toBe(100);
    expect(notes).toContain('note-0999');
    expect(notes).toContain('note-0900');
    expect(notes).not.toContain('note-0899');
  });

  it('a text file attached to a mention reaches the model and the inbox, downloaded with the bot token', async () => {
    const { slack, model } = harness;
    const file = slack.shareFile({ name: 'deploy.log', mimetype: 'text/plain', content: '12:00 start\n12:01 ERROR: disk full on /var/lib/postgres\n' });
    const before = model.requests.length;
    model.enqueue({ text: 'The disk is full.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: 'geordi why did it stop?', files: [file] });
    const content = textOf(await nextUserMessage(before));
    await replied('C1', mention.ts, 'The disk is full.');
    expect(content).toContain('ERROR: disk full on /var/lib/postgres');
    expect(content).toMatch(/\.tsuka\/inbox\/\d{4}-\d{2}-\d{2}-deploy\.log/);
    const inbox = path.join(harness.workspace, '.tsuka', 'inbox');
    const saved = (await readdir(inbox)).find((name) => name.endsWith('-deploy.log'));
    expect(await readFile(path.join(inbox, saved!), 'utf8')).toContain('disk full');
    expect(slack.fileRequests.filter((request) => request.path.endsWith('deploy.log')).every((request) => request.authorized)).toBe(true);
  });

  it('a file with a hostile name is saved inside the inbox under a sanitised name', async () => {
    const { slack, model } = harness;
    const file = slack.shareFile({ name: '../../../../tmp/..\\evil name;rm -rf.sh', mimetype: 'text/x-sh', content: 'echo pwned\n' });
    const before = model.requests.length;
    model.enqueue({ text: 'A shell script.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: 'geordi what is this?', files: [file] });
    const content = textOf(await nextUserMessage(before));
    await replied('C1', mention.ts, 'A shell script.');
    const inbox = await readdir(path.join(harness.workspace, '.tsuka', 'inbox'));
    const saved = inbox.find((name) => name.includes('evil'));
    expect(saved).toMatch(/^\d{4}-\d{2}-\d{2}-evil_name_rm_-rf\.sh$/);
    expect(content).toContain(`.tsuka/inbox/${saved}`);
    expect(await readdir(harness.home)).not.toContain('evil name;rm -rf.sh');
  });

  it('an image goes to a vision model as an image part', async () => {
    const { slack, model } = harness;
    model.setVision(true);
    const file = slack.shareFile({ name: 'screenshot.png', mimetype: 'image/png', content: PNG });
    const before = model.requests.length;
    model.enqueue({ text: 'I see a red dot.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: 'geordi what is on the screen?', files: [file] });
    const content = await nextUserMessage(before);
    await replied('C1', mention.ts, 'I see a red dot.');
    expect(Array.isArray(content)).toBe(true);
    const image = (content as Exclude<Content, string>).find((part) => part.type === 'image_url');
    expect(image?.image_url?.url).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
  });

  it('for a model without vision, the thread is told once and no image part is sent', async () => {
    const { slack, model } = harness;
    model.setVision(false);
    const file = slack.shareFile({ name: 'graph.png', mimetype: 'image/png', content: PNG });
    const before = model.requests.length;
    model.enqueue({ text: 'I cannot see it.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: 'geordi read this graph', files: [file] });
    const content = await nextUserMessage(before);
    await replied('C1', mention.ts, 'I cannot see it.');
    expect(typeof content).toBe('string');
    expect(content).toContain('cannot see images');
    const notes = harness.botReplies('C1', mention.ts).filter((message) => message.text.includes('cannot see images'));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.text).toContain('graph.png');
  });

  it('without files:read, Slack’s sign-in page is recognised and the model is told the file could not be read', async () => {
    const { slack, model } = harness;
    slack.setScopes(['app_mentions:read', 'chat:write', 'chat:write.customize', 'channels:history', 'channels:read']);
    try {
      const file = slack.shareFile({ name: 'notes.md', mimetype: 'text/markdown', content: '# secret notes' });
      const before = model.requests.length;
      model.enqueue({ text: 'No file for me.' });
      const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: 'geordi read my notes', files: [file] });
      const content = textOf(await nextUserMessage(before));
      await replied('C1', mention.ts, 'No file for me.');
      expect(content).toMatch(/notes\.md: could not be read \(.*files:read/);
      expect(content).not.toContain('# secret notes');
    } finally {
      slack.setScopes(DEFAULT_SLACK_SCOPES);
    }
  });

  it('a file URL on another port of the platform’s host never receives the bot token, directly or through a redirect', async () => {
    const { slack, model } = harness;
    const direct = { ...slack.shareFile({ name: 'direct.log', mimetype: 'text/plain', content: 'x' }), url_private_download: otherPortUrl('direct.log') };
    const redirected = slack.shareFile({ name: 'moved.log', mimetype: 'text/plain', content: 'x', redirectTo: otherPortUrl('moved.log') });
    const before = model.requests.length;
    model.enqueue({ text: 'Nothing to read.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: 'geordi read these logs', files: [direct, redirected] });
    const content = textOf(await nextUserMessage(before));
    await replied('C1', mention.ts, 'Nothing to read.');
    expect(content).toMatch(/direct\.log: could not be read/);
    expect(content).toMatch(/moved\.log: could not be read/);
    expect(slack.fileRequests.some((request) => request.path.endsWith('moved.log'))).toBe(true);
    expect(otherPortHeaders.filter((headers) => headers.authorization !== undefined)).toEqual([]);
    expect(JSON.stringify(otherPortHeaders)).not.toContain(slack.botToken);
    expect(content).not.toContain('stolen');
  });

  it('a PDF attached to a mention reaches the model as its text, saved beside it in the inbox', async () => {
    const { slack, model } = harness;
    const pdf = minimalPdf([['Incident report 2025-06-01', 'Root cause: the certificate of db-7 expired at 03:12'], ['Action: renew it with certbot']]);
    const file = slack.shareFile({ name: 'report.pdf', mimetype: 'application/pdf', content: pdf });
    const before = model.requests.length;
    model.enqueue({ text: 'An expired certificate.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: 'geordi what does the report say?', files: [file] });
    const content = textOf(await nextUserMessage(before));
    await replied('C1', mention.ts, 'An expired certificate.');
    expect(content).toContain('Root cause: the certificate of db-7 expired at 03:12');
    expect(content).toContain('Action: renew it with certbot');
    expect(content).toMatch(/a PDF of 2 pages; its text is saved in \.tsuka\/inbox\/\d{4}-\d{2}-\d{2}-report\.pdf\.txt/);
    const inbox = await readdir(path.join(harness.workspace, '.tsuka', 'inbox'));
    const text = inbox.find((name) => name.endsWith('-report.pdf.txt'));
    expect(await readFile(path.join(harness.workspace, '.tsuka', 'inbox', text!), 'utf8')).toContain('certificate of db-7 expired');
    expect(inbox.some((name) => name.endsWith('-report.pdf'))).toBe(true);
  });

  it('an encrypted or broken PDF is said in the thread, saved all the same, and the turn goes on', async () => {
    const { slack, model } = harness;
    const locked = slack.shareFile({ name: 'payroll.pdf', mimetype: 'application/pdf', content: minimalPdf([['salaries']], { encrypted: true }) });
    const broken = slack.shareFile({ name: 'scan.pdf', mimetype: 'application/pdf', content: garbagePdf() });
    const before = model.requests.length;
    model.enqueue({ text: 'I could not open them.' });
    const mention = await slack.mention({ userId: 'U1', channelId: 'C1', text: 'geordi summarise these', files: [locked, broken] });
    const content = textOf(await nextUserMessage(before));
    await replied('C1', mention.ts, 'I could not open them.');
    const notes = harness.botReplies('C1', mention.ts).map((message) => message.text);
    expect(notes.some((text) => /Couldn't read payroll\.pdf: it is password-protected/.test(text))).toBe(true);
    expect(notes.some((text) => /Couldn't read scan\.pdf: it is not a readable PDF/.test(text))).toBe(true);
    expect(content).toMatch(/payroll\.pdf \(.*\): a PDF whose text could not be read \(it is password-protected/);
    const inbox = await readdir(path.join(harness.workspace, '.tsuka', 'inbox'));
    expect(inbox.some((name) => name.endsWith('-payroll.pdf'))).toBe(true);
    expect(inbox.some((name) => name.endsWith('-scan.pdf'))).toBe(true);
  });

  it('a tag-in fetches the files attached to the thread’s earlier messages and says which message each came from', async () => {
    const { slack, model } = harness;
    const parent = slack.postUnheard({ userId: 'U1', channelId: 'C1', text: 'nightly backup failed' });
    const log = slack.shareFile({ name: 'backup.log', mimetype: 'text/plain', content: '02:00 start\n02:07 FATAL: bucket quota exceeded\n' });
    slack.postUnheard({ userId: 'U2', channelId: 'C1', threadTs: parent.ts, text: 'log attached', files: [log] });
    const before = model.requests.length;
    model.enqueue({ text: 'The bucket is over quota.' });
    await slack.mention({ userId: 'U1', channelId: 'C1', threadTs: parent.ts, text: 'geordi why?' });
    const content = textOf(await nextUserMessage(before));
    await replied('C1', parent.ts, 'The bucket is over quota.');
    expect(content).toContain('Files attached to earlier messages of this thread');
    expect(content).toContain('FATAL: bucket quota exceeded');
    expect(content).toMatch(/\.tsuka\/inbox\/\d{4}-\d{2}-\d{2}-backup\.log \(.*\), from <@U2>'s message of .* UTC “log attached”/);
    expect(slack.fileRequests.filter((request) => request.path.endsWith('backup.log')).every((request) => request.authorized)).toBe(true);
    expect(slack.fileRequests.some((request) => request.path.endsWith('backup.log'))).toBe(true);
  });

  it('a direct message is answered by the default character, in a thread of the DM', async () => {
    const { slack, model } = harness;
    slack.defineChannel({ id: 'D0ANA', isIm: true, members: [slack.botUserId, 'U1'] });
    model.enqueue({ text: 'Hello from your DM.' });
    const dm = await slack.directMessage({ userId: 'U1', channelId: 'D0ANA', text: 'hi, can you help me?' });
    await replied('D0ANA', dm.ts, 'Hello from your DM.');
    const request = model.requests.at(-1)!.body as ModelBody;
    expect(textOf(request.messages.at(-1)!.content)).toBe('hi, can you help me?');

    // Same tools and approvals as in a channel: the card comes in the DM's thread and the person decides.
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'dm-notes.md', content: '# from a DM\n' } }] });
    model.enqueue({ text: 'Written.' });
    await slack.threadMessage({ userId: 'U1', channelId: 'D0ANA', threadTs: dm.ts, text: 'write my notes please' });
    await slack.waitFor(() => harness.botReplies('D0ANA', dm.ts).some((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve')));
    const card = harness.botReplies('D0ANA', dm.ts).find((message) => buttonsOf(message).some((button) => button.action_id === 'tsuka_approve'))!;
    const approve = buttonsOf(card).find((button) => button.action_id === 'tsuka_approve')!;
    await slack.deliverBlockAction({ userId: 'U1', channelId: 'D0ANA', messageTs: card.ts, threadTs: dm.ts, actionId: 'tsuka_approve', value: approve.value });
    await replied('D0ANA', dm.ts, 'Written.');
    expect(await readFile(path.join(harness.workspace, 'dm-notes.md'), 'utf8')).toBe('# from a DM\n');
  });

  it('the assistant surface (issue 24): a new thread offers the characters as suggested prompts, its first message titles it and is answered there', async () => {
    const { slack, model } = harness;
    slack.defineChannel({ id: 'D0BEN', isIm: true, members: [slack.botUserId, 'U2'] });
    const opened = await slack.startAssistantThread({ userId: 'U2', channelId: 'D0BEN', contextChannelId: 'C1' });
    expect(opened.eventId).toMatch(/^Ev/);
    await slack.waitFor(() => slack.suggestedPrompts.length === 1);
    const [offered] = slack.suggestedPrompts;
    expect(offered).toMatchObject({ channel: 'D0BEN', thread_ts: opened.threadTs });
    // At most four, each naming a character (the default one first) and sending its name first.
    expect(offered!.prompts.length).toBeGreaterThan(0);
    expect(offered!.prompts.length).toBeLessThanOrEqual(4);
    expect(offered!.prompts[0]).toEqual({ title: 'Ask Geordi', message: '@geordi what can you do?' });
    for (const prompt of offered!.prompts) expect(prompt.message).toMatch(/^@[a-z_]+ /);

    model.enqueue({ text: 'Happy to help with the release.' });
    const before = model.requests.length;
    await slack.directMessage({
      userId: 'U2',
      channelId: 'D0BEN',
      threadTs: opened.threadTs,
      text: '*Plan* the 2.0 release with me, step by step, including the changelog and the tag',
    });
    await replied('D0BEN', opened.threadTs, 'Happy to help with the release.');
    expect(textOf(await nextUserMessage(before))).toContain('*Plan* the 2.0 release with me');
    await slack.waitFor(() => slack.assistantTitles.length === 1);
    // Titled once, from the first message: one line, no Markdown, cut to 60 characters.
    expect(slack.assistantTitles).toEqual([
      { channel: 'D0BEN', thread_ts: opened.threadTs, title: 'Plan the 2.0 release with me, step by step, including the c…' },
    ]);
    expect(slack.assistantTitles[0]!.title).toHaveLength(60);
    model.enqueue({ text: 'Next step.' });
    await slack.threadMessage({ userId: 'U2', channelId: 'D0BEN', threadTs: opened.threadTs, text: 'and then?' });
    await replied('D0BEN', opened.threadTs, 'Next step.');
    expect(slack.assistantTitles).toHaveLength(1);
    expect(
      slack.calls
        .filter((call) => call.method.startsWith('assistant.threads.set') && call.method !== 'assistant.threads.setStatus')
        .every((call) => call.response.ok),
    ).toBe(true);
  });
});
