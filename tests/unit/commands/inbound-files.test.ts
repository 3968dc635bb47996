/** Files in (issue 23): saved in the jail's inbox, small text shown, large text by path, images by the model's sight. */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatSurface } from '../../../src/commands/chat-surface.js';
import type { InboundFile } from '../../../src/commands/conversation-context.js';
import { INBOX_INLINE_MAX_CHARS, INBOX_MAX_TEXT_BYTES, prepareFiles } from '../../../src/commands/inbound-files.js';
import { silentLogger } from '../../../src/core/logger.js';
import { createWorkspace } from '../../../src/core/safety/workspace-jail.js';
import type { Workspace } from '../../../src/core/tools/tool.js';

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
const prepare = (list: InboundFile[], sees = false) =>
  prepareFiles({
    files: list,
    surface,
    workspace,
    seesImages: async () => sees,
    maskSecrets: (text) => text.replaceAll('sk-live-9', '[secret]'),
    logger: silentLogger,
    now: () => new Date('2025-06-01T00:00:00Z'),
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
});
