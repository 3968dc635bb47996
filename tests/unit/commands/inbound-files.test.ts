/** Files in (issue 23): saved in the jail's inbox, small text shown, large text by path, images by the model's sight, PDFs as their text. */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatSurface } from '../../../src/commands/chat-surface.js';
import type { InboundFile } from '../../../src/commands/context/conversation-context.js';
import { INBOX_INLINE_MAX_CHARS, INBOX_MAX_TEXT_BYTES, prepareFiles } from '../../../src/commands/context/inbound-files.js';
import { silentLogger } from '../../../src/core/logger.js';
import { createWorkspace } from '../../../src/core/safety/workspace-jail.js';
import type { Workspace } from '../../../src/core/tools/tool.js';
import { garbagePdf, minimalPdf } from '../../support/minimal-pdf.js';

let home: string;
let workspace: Workspace;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-inbox-'));
  await mkdir(path.join(home, 'workspace'));
  workspace = await createWorkspace(path.join(home, 'workspace'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const files = new Map<string, Buffer>();
const surface = {
  downloadFile: async (file: InboundFile, options: { maxBytes: number }) => {
    const bytes = files.get(file.source);
    if (!bytes) throw new Error('gone');
    if (bytes.length > options.maxBytes) throw new Error('too large');
    return bytes;
  },
} as unknown as ChatSurface;
const attach = (name: string, content: string | Buffer, mediaType?: string): InboundFile => {
  files.set(name, Buffer.from(content));
  return { name, source: name, size: Buffer.byteLength(content), ...(mediaType ? { mediaType } : {}) };
};
const prepare = (list: InboundFile[], sees = false, extra: Partial<Parameters<typeof prepareFiles>[0]> = {}) =>
  prepareFiles({
    files: list,
    surface,
    workspace,
    seesImages: async () => sees,
    maskSecrets: (text) => text.replaceAll('sk-live-9', '[secret]'),
    logger: silentLogger,
    now: () => new Date('2025-06-01T00:00:00Z'),
    ...extra,
  });

describe('prepareFiles', () => {
  it('shows a small text file whole (masked) and names a large one by its inbox path', async () => {
    const prepared = await prepare([attach('small.log', 'ERROR key sk-live-9'), attach('big.log', 'y'.repeat(INBOX_INLINE_MAX_CHARS + 10))]);
    expect(prepared.prompt).toContain('.tsuka/inbox/2025-06-01-small.log');
    expect(prepared.prompt).toContain('ERROR key [secret]');
    expect(prepared.prompt).toContain('read the rest with read_file');
    expect(prepared.prompt).not.toContain('y'.repeat(INBOX_INLINE_MAX_CHARS));
    expect(await readFile(path.join(workspace.root, '.tsuka/inbox/2025-06-01-big.log'), 'utf8')).toHaveLength(INBOX_INLINE_MAX_CHARS + 10);
  });

  it('never writes outside the jail, even when the inbox is a link pointing out of it', async () => {
    const outside = path.join(home, 'outside');
    await mkdir(outside);
    await mkdir(path.join(workspace.root, '.tsuka'));
    await symlink(outside, path.join(workspace.root, '.tsuka', 'inbox'));
    const prepared = await prepare([attach('payload.sh', 'echo pwned')]);
    expect(await readdir(outside)).toEqual([]);
    expect(prepared.prompt).toMatch(/payload\.sh: could not be read/);
  });

  it('does not download a file announced over the cap, and keeps binary content out of the prompt', async () => {
    const huge: InboundFile = { name: 'dump.sql', source: 'dump.sql', size: INBOX_MAX_TEXT_BYTES + 1 };
    const prepared = await prepare([huge, attach('blob.txt', Buffer.from([0x41, 0x00, 0x42]))]);
    expect(prepared.prompt).toMatch(/dump\.sql: not downloaded \(.*over the/);
    expect(prepared.prompt).toMatch(/blob\.txt \(3 B\): binary content; saved, not shown/);
  });

  it('gives images to a model that sees them, and names them as unseen otherwise', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const seen = await prepare([attach('a.png', png, 'image/png')], true);
    expect(seen.images).toEqual([{ mediaType: 'image/png', data: png.toString('base64') }]);
    const unseen = await prepare([attach('b.png', png, 'image/png')], false);
    expect(unseen.images).toEqual([]);
    expect(unseen.unseenImages).toEqual(['b.png']);
    expect(unseen.prompt).toContain('cannot see images');
  });

  it('a PDF is shown by its text, saved as <name>.txt beside it; its secrets masked in the prompt', async () => {
    const prepared = await prepare([
      attach('report.pdf', minimalPdf([['Root cause: expired certificate', 'token sk-live-9'], ['renew it']]), 'application/pdf'),
    ]);
    expect(prepared.prompt).toContain('.tsuka/inbox/2025-06-01-report.pdf (');
    expect(prepared.prompt).toContain('a PDF of 2 pages; its text is saved in .tsuka/inbox/2025-06-01-report.pdf.txt');
    expect(prepared.prompt).toContain('Root cause: expired certificate');
    expect(prepared.prompt).toContain('token [secret]');
    expect(await readFile(path.join(workspace.root, '.tsuka/inbox/2025-06-01-report.pdf.txt'), 'utf8')).toContain('[page 2]\nrenew it');
    expect(prepared.unreadable).toEqual([]);
  });

  it('an encrypted or broken PDF is kept, named as unreadable with its reason, and the others still read', async () => {
    const prepared = await prepare([
      attach('locked.pdf', minimalPdf([['secret']], { encrypted: true })),
      attach('broken.pdf', garbagePdf()),
      attach('notes.txt', 'still read'),
    ]);
    expect(prepared.unreadable).toEqual([
      { name: 'locked.pdf', path: '.tsuka/inbox/2025-06-01-locked.pdf', reason: 'it is password-protected (encrypted)' },
      { name: 'broken.pdf', path: '.tsuka/inbox/2025-06-01-broken.pdf', reason: expect.stringMatching(/^it is not a readable PDF/) },
    ]);
    expect(prepared.prompt).toMatch(/locked\.pdf \(.*\): a PDF whose text could not be read \(it is password-protected/);
    expect(prepared.prompt).toContain('still read');
    expect((await readdir(path.join(workspace.root, '.tsuka/inbox'))).sort()).toEqual([
      '2025-06-01-broken.pdf',
      '2025-06-01-locked.pdf',
      '2025-06-01-notes.txt',
    ]);
  });

  it('a long PDF shows its head and where the rest of its text is', async () => {
    const lines = Array.from({ length: 40 }, (_, index) => `line ${index} ${'z'.repeat(60)}`);
    const prepared = await prepare([attach('long.pdf', minimalPdf([lines, lines, lines, lines]))], false, {
      extractPdf: async () => ({ text: lines.join('\n').repeat(5), pages: 4, totalPages: 4, truncated: false, empty: false }),
    });
    expect(prepared.prompt).toMatch(/read the rest with read_file in \.tsuka\/inbox\/2025-06-01-long\.pdf\.txt\)/);
  });

  it('files of earlier messages: each says where it came from, and their total size is capped', async () => {
    const first = attach('a.log', 'x'.repeat(600));
    const second = attach('b.log', 'y'.repeat(600));
    const prepared = await prepare([first, second], false, {
      heading: 'Files attached to earlier messages of this thread, saved in the workspace:',
      originOf: (file) => (file === first ? 'ana’s message of 2025-06-01 10:00 UTC' : 'ben’s message of 2025-06-01 10:05 UTC'),
      maxTotalBytes: 1000,
    });
    expect(prepared.prompt.split('\n')[0]).toBe('Files attached to earlier messages of this thread, saved in the workspace:');
    expect(prepared.prompt).toContain('.tsuka/inbox/2025-06-01-a.log (600 B), from ana’s message of 2025-06-01 10:00 UTC:');
    expect(prepared.prompt).toContain(
      'b.log, from ben’s message of 2025-06-01 10:05 UTC: not downloaded (600 B, over the 1000 B limit for these files together)',
    );
  });
});
