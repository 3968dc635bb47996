/** Issue 35: which channel workspaces count as shared with other people's channels. */
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspaceSharing } from '../../../src/commands/channels/workspace-sharing.js';

let base: string;
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('workspace sharing', () => {
  it('the default workspace is shared; a folder of its own is not; a folder inside, around or linked to another is', async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'tsuka-sharing-'));
    const main = path.join(base, 'workspace');
    for (const folder of [main, path.join(base, 'dm'), path.join(base, 'ops'), path.join(main, 'sub')]) await mkdir(folder, { recursive: true });
    await symlink(path.join(base, 'ops'), path.join(base, 'ops-link'));
    const dm = { key: 'D1', workspace: path.join(base, 'dm') };
    const nested = { key: 'D2', workspace: path.join(main, 'sub') };
    const ops = { key: 'C1', workspace: path.join(base, 'ops') };
    const linked = { key: 'D3', workspace: path.join(base, 'ops-link') };
    const sharing = createWorkspaceSharing([dm, nested, ops, linked], main);
    expect(await sharing(undefined, main)).toBe(true);
    expect(await sharing(dm, dm.workspace)).toBe(false);
    expect(await sharing(nested, nested.workspace)).toBe(true);
    expect(await sharing(linked, ops.workspace)).toBe(true);
    expect(await sharing({ key: 'D4', workspace: base }, base)).toBe(true);
  });
});
