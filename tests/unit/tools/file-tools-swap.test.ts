/**
 * The race of issue 29 made certain: the folder `d` is swapped for a link to a folder outside the
 * workspace exactly after the jail's check of the path and before the tool opens it. The tools
 * must refuse (the walk meets the link and sees it leads outside) and touch nothing outside.
 */
import { mkdir, readFile, readdir, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceEscapeError } from '../../../src/core/errors.js';
import { deleteFileTool } from '../../../src/core/tools/impl/delete-file.js';
import { editFileTool } from '../../../src/core/tools/impl/edit-file.js';
import { grepSearchTool } from '../../../src/core/tools/impl/grep-search.js';
import { listDirTool } from '../../../src/core/tools/impl/list-dir.js';
import { readFileTool } from '../../../src/core/tools/impl/read-file.js';
import { writeFileTool } from '../../../src/core/tools/impl/write-file.js';
import type { ToolContext } from '../../../src/core/tools/tool.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

const MARKER = 'OUTSIDE-MARKER';
let test: TestToolContext;
let outsideBefore: string[];

beforeEach(async () => {
  test = await createTestToolContext();
  await mkdir(join(test.root, 'd'));
  await writeFile(join(test.root, 'd', 'f'), 'needle inside\n');
  await writeFile(join(test.outside, 'f'), `needle ${MARKER}\n`);
  await writeFile(join(test.outside, 'only-outside.txt'), `${MARKER}\n`);
  outsideBefore = (await readdir(test.outside)).sort();
});
afterEach(() => test.cleanup());

/** The tool context whose jail check of `trigger` is followed at once by the swap of `d` for a link outside. */
function swappingContext(trigger: string): ToolContext {
  const workspace = test.context.workspace;
  return {
    ...test.context,
    workspace: {
      root: workspace.root,
      relative: (absolutePath) => workspace.relative(absolutePath),
      async resolve(requested) {
        const checked = await workspace.resolve(requested);
        if (requested === trigger) {
          await rename(join(test.root, 'd'), join(test.root, 'parked'));
          await symlink(test.outside, join(test.root, 'd'));
        }
        return checked;
      },
    },
  };
}

async function expectOutsideUntouched(): Promise<void> {
  expect((await readdir(test.outside)).sort()).toEqual(outsideBefore);
  expect(await readFile(join(test.outside, 'f'), 'utf8')).toBe(`needle ${MARKER}\n`);
}

describe('a folder swapped for a link outside between the check and the open', () => {
  it('read_file refuses instead of reading the outside file', async () => {
    await expect(readFileTool.execute({ path: 'd/f' }, swappingContext('d/f'))).rejects.toBeInstanceOf(WorkspaceEscapeError);
  });

  it('write_file refuses instead of creating a file outside', async () => {
    await expect(writeFileTool.execute({ path: 'd/planted.sh', content: 'x' }, swappingContext('d/planted.sh'))).rejects.toBeInstanceOf(WorkspaceEscapeError);
    await expectOutsideUntouched();
  });

  it('write_file appending refuses instead of appending to the outside file', async () => {
    await expect(writeFileTool.execute({ path: 'd/f', content: 'x', append: true }, swappingContext('d/f'))).rejects.toBeInstanceOf(WorkspaceEscapeError);
    await expectOutsideUntouched();
  });

  it('edit_file refuses instead of rewriting the outside file', async () => {
    const call = editFileTool.execute({ path: 'd/f', targetContent: 'needle', replacementContent: 'changed' }, swappingContext('d/f'));
    await expect(call).rejects.toBeInstanceOf(WorkspaceEscapeError);
    await expectOutsideUntouched();
  });

  it('delete_file refuses instead of deleting the outside file', async () => {
    // delete_file checks the path, then its parent: the swap follows the last check.
    await expect(deleteFileTool.execute({ path: 'd/f' }, swappingContext('d'))).rejects.toBeInstanceOf(WorkspaceEscapeError);
    await expectOutsideUntouched();
  });

  it('list_dir refuses instead of listing the outside folder', async () => {
    await expect(listDirTool.execute({ path: 'd' }, swappingContext('d'))).rejects.toBeInstanceOf(WorkspaceEscapeError);
  });

  it('grep_search refuses instead of searching the outside folder', async () => {
    await expect(grepSearchTool.execute({ query: MARKER, path: 'd' }, swappingContext('d'))).rejects.toBeInstanceOf(WorkspaceEscapeError);
  });
});
