/**
 * Issue 23 in the playground: files attached in the composer reach the model and the workspace
 * inbox (read back from the playground's own store), a picture is shown in the message it came
 * with, the "Direct" conversation is a DM (`direct: true`, channelInfo `dm`) that is answered, and a
 * character called into a thread reads what the person wrote there before, with its files.
 * One app for the whole file, a fresh channel per test.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPlaygroundHarness, type PlaygroundHarness } from './playground-harness.js';
import { minimalPdf } from '../../support/minimal-pdf.js';

type Content = string | { type: string; text?: string; image_url?: { url: string } }[];
interface ModelBody {
  messages: { role: string; content: Content }[];
}

let h: PlaygroundHarness;
beforeAll(async () => {
  h = await startPlaygroundHarness();
});
afterAll(async () => {
  await h.stop();
});
beforeEach(async () => {
  // A channel of the test's own, the model's queue and records emptied (vision unset with them).
  await h.freshChannel();
});

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const textOf = (content: Content) => (typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('\n'));
const settled = (message: { buttons: unknown[] }) => message.buttons.length === 0;

async function nextUserMessage(before: number): Promise<Content> {
  await h.model.waitForRequests(before + 1);
  const body = h.model.requests[before]!.body as ModelBody;
  return body.messages.filter((message) => message.role === 'user').at(-1)!.content;
}

async function sayWithFiles(channel: string, text: string, files: { name: string; type: string; content: Buffer | string }[]): Promise<string> {
  const answer = await h.post('/api/messages', {
    channel,
    text,
    files: files.map((file) => ({ name: file.name, type: file.type, data: Buffer.from(file.content).toString('base64') })),
  });
  if (answer.status !== 202) throw new Error(`POST /api/messages answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const root = String(answer.body.thread);
  await h.waitFor(() => h.messages.has(root));
  return root;
}

describe('playground: files and the direct conversation', () => {
  it('a text attachment reaches the model and is saved in the inbox', async () => {
    const before = h.model.requests.length;
    h.model.enqueue({ text: 'The disk is full.' });
    const root = await sayWithFiles(h.channel, 'geordi why did it stop?', [
      { name: 'app.log', type: 'text/plain', content: '12:01 ERROR: disk full on /var/lib/postgres\n' },
    ]);
    const content = textOf(await nextUserMessage(before));
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('The disk is full.') && settled(message)));
    expect(content).toContain('ERROR: disk full on /var/lib/postgres');
    const inbox = path.join(h.workspace, '.tsuka', 'inbox');
    const saved = (await readdir(inbox)).find((name) => name.endsWith('-app.log'));
    expect(await readFile(path.join(inbox, saved!), 'utf8')).toContain('disk full');
    // The message carries its file, which the page downloads through the keyed route.
    const attachments = h.messages.get(root)!.attachments!;
    expect(attachments).toHaveLength(1);
    const download = await h.get(`/api/files?id=${attachments[0]}`);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(await download.text()).toContain('disk full');
  });

  it('an image attachment is shown in its message and goes to a vision model', async () => {
    h.model.setVision(true);
    const before = h.model.requests.length;
    h.model.enqueue({ text: 'A red dot.' });
    const root = await sayWithFiles(h.channel, 'geordi what is this?', [{ name: 'dot.png', type: 'image/png', content: PNG }]);
    const content = await nextUserMessage(before);
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('A red dot.') && settled(message)));
    const image = (content as Exclude<Content, string>).find((part) => part.type === 'image_url');
    expect(image?.image_url?.url).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
    const [id] = h.messages.get(root)!.attachments!;
    expect(h.files.find((file) => file.id === id)).toMatchObject({ fileName: 'dot.png', size: PNG.length, attached: { mediaType: 'image/png' } });
    const shown = await h.get(`/api/files?id=${id}&view=image`);
    expect(shown.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await shown.arrayBuffer())).toEqual(PNG);
  });

  it('an attached SVG or HTML file is never served as a picture or a page', async () => {
    h.model.enqueue({ text: 'Seen.' });
    const root = await sayWithFiles(h.channel, 'geordi look', [{ name: 'x.svg', type: 'image/svg+xml', content: '<svg onload="alert(1)"/>' }]);
    const [id] = h.messages.get(root)!.attachments!;
    const shown = await h.get(`/api/files?id=${id}&view=image`);
    expect(shown.headers.get('content-type')).toBe('application/octet-stream');
    expect(shown.headers.get('content-disposition')).toMatch(/^attachment;/);
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Seen.') && settled(message)));
  });

  it('refuses too many, too large or malformed files, and files on a command', async () => {
    const posts = h.model.requests.length;
    const file = { name: 'a.txt', type: 'text/plain', data: Buffer.from('a').toString('base64') };
    expect((await h.post('/api/messages', { channel: h.channel, text: 'hi', files: Array.from({ length: 11 }, () => file) })).status).toBe(413);
    const big = { name: 'big.txt', type: 'text/plain', data: Buffer.alloc(5_000_001).toString('base64') };
    expect((await h.post('/api/messages', { channel: h.channel, text: 'hi', files: [big] })).status).toBe(413);
    expect((await h.post('/api/messages', { channel: h.channel, text: 'hi', files: [{ ...file, data: 'not base64!' }] })).status).toBe(400);
    expect((await h.post('/api/messages', { channel: h.channel, text: '/tsuka help', files: [file] })).status).toBe(400);
    expect(h.model.requests.length).toBe(posts);
  });

  it('the direct conversation is a DM with the bot, answered there', async () => {
    const snapshot = (await (await h.get('/api/state')).json()) as { channels: { id: string; direct?: boolean }[] };
    expect(snapshot.channels).toContainEqual({ id: 'direct', name: 'TSUKA', direct: true });
    expect(await h.app.surfaces.playground!.channelInfo!('playground:direct')).toMatchObject({ kind: 'dm' });
    h.model.enqueue({ text: 'Hello from your DM.' });
    const answer = await h.post('/api/messages', { channel: 'direct', text: 'hi, can you help me?' });
    expect(answer.status).toBe(202);
    const root = String(answer.body.thread);
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Hello from your DM.') && settled(message)));
    expect(h.thread(root).every((message) => message.channel === 'direct')).toBe(true);
  });

  it('a character called into a thread reads what the person wrote there before, and the files they attached', async () => {
    h.model.enqueue({ text: 'Looking into it.' });
    const root = await h.say('geordi the nightly backup failed');
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Looking into it.') && settled(message)));
    // After a reset the bot is no longer part of the thread: what is written next is not for it…
    await h.say('reset', root);
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Conversation reset')));
    const report = minimalPdf([['Backup report', 'FATAL: bucket quota exceeded at 02:07']]);
    const posted = await h.post('/api/messages', {
      channel: h.channel,
      thread: root,
      text: 'the report from the storage team',
      files: [{ name: 'backup-report.pdf', type: 'application/pdf', data: report.toString('base64') }],
    });
    expect(posted.status).toBe(202);
    // …until someone calls a character in, who starts with it.
    const before = h.model.requests.length;
    h.model.enqueue({ text: 'The bucket is over quota.' });
    await h.say('@data what went wrong?', root);
    const content = textOf(await nextUserMessage(before));
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('The bucket is over quota.') && settled(message)));
    expect(content).toContain('Earlier in this thread');
    expect(content.indexOf('the nightly backup failed')).toBeLessThan(content.indexOf('the report from the storage team'));
    expect(content).not.toContain('Looking into it.');
    expect(content).toContain('FATAL: bucket quota exceeded at 02:07');
    expect(content).toMatch(/backup-report\.pdf \(.*\), from you's message of .* UTC “the report from the storage team”: a PDF of 1 page/);
  });
});
