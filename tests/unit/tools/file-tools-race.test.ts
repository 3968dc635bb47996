/**
 * The attack of issue 29: while another process flips `d` between a folder in the workspace and
 * a link to a folder outside it, the file tools must never read, write, edit, list, search or
 * delete anything outside — however the check and the open interleave with the flips.
 */
import { lstat, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deleteFileTool } from '../../../src/core/tools/impl/delete-file.js';
import { editFileTool } from '../../../src/core/tools/impl/edit-file.js';
import { grepSearchTool } from '../../../src/core/tools/impl/grep-search.js';
import { listDirTool } from '../../../src/core/tools/impl/list-dir.js';
import { readFileTool } from '../../../src/core/tools/impl/read-file.js';
import { writeFileTool } from '../../../src/core/tools/impl/write-file.js';
import type { ToolResult } from '../../../src/core/tools/tool.js';
import { type SymlinkFlipper, startSymlinkFlipper } from './symlink-flipper.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

/** Calls per tool while the flipper runs (the probe made 130). */
const CALLS = 150;
const MARKER = 'OUTSIDE-MARKER';
const OUTSIDE_ONLY = 'outside-only.txt';
const victims = Array.from({ length: CALLS }, (_, index) => `v${index}`);

let test: TestToolContext | undefined;
let flipper: SymlinkFlipper | undefined;
let outsideBefore: string[];

afterEach(async () => {
  await flipper?.stop();
  flipper = undefined;
  await test?.cleanup();
});

/** `d` and the outside folder hold the same names; the flipper starts. */
async function setUp(): Promise<TestToolContext> {
  test = await createTestToolContext();
  const inside = join(test.root, 'd');
  await mkdir(inside);
  await writeFile(join(inside, 'f'), 'needle inside\n');
  await writeFile(join(test.outside, 'f'), `needle ${MARKER}\n`);
  await writeFile(join(test.outside, OUTSIDE_ONLY), `${MARKER}\n`);
  for (const name of victims) {
    await writeFile(join(inside, name), 'inside victim\n');
    await writeFile(join(test.outside, name), 'outside victim\n');
  }
  outsideBefore = (await readdir(test.outside)).sort();
  flipper = await startSymlinkFlipper(inside, join(test.root, '.parked'), test.outside);
  return test;
}

/** Runs `call` CALLS times; a refusal or a missing path (the folder mid-flip) is a fine outcome. */
async function race(call: (index: number) => Promise<ToolResult>): Promise<string[]> {
  const outputs: string[] = [];
  for (let index = 0; index < CALLS; index += 1) {
    try {
      outputs.push((await call(index)).output);
    } catch (error) {
      outputs.push(`refused: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  await flipper?.stop();
  flipper = undefined;
  return outputs;
}

/** Entries created in or removed from the outside folder, and whether its `f` was rewritten. */
async function outsideChanges(outside: string): Promise<{ created: number; removed: number; rewritten: boolean }> {
  const after = await readdir(outside);
  return {
    created: after.filter((name) => !outsideBefore.includes(name)).length,
    removed: outsideBefore.filter((name) => !after.includes(name)).length,
    rewritten: (await readFile(join(outside, 'f'), 'utf8')) !== `needle ${MARKER}\n`,
  };
}

const untouched = { created: 0, removed: 0, rewritten: false };

describe('file tools while `d` flips between a folder and a link outside the workspace', () => {
  it('read_file never returns the outside file', async () => {
    const { context } = await setUp();
    const outputs = await race(() => readFileTool.execute({ path: 'd/f' }, context));
    expect(outputs.filter((output) => output.includes(MARKER)).length).toBe(0);
  });

  it('write_file never creates a file outside', async () => {
    const { context, outside } = await setUp();
    await race((index) => writeFileTool.execute({ path: `d/new-${index}.txt`, content: 'planted\n' }, context));
    expect(await outsideChanges(outside)).toEqual(untouched);
  });

  it('edit_file never rewrites the outside file', async () => {
    const { context, outside } = await setUp();
    const inode = (await lstat(join(outside, 'f'))).ino;
    await race(() => editFileTool.execute({ path: 'd/f', targetContent: 'needle', replacementContent: 'needle' }, context));
    expect(await outsideChanges(outside)).toEqual(untouched);
    expect((await lstat(join(outside, 'f'))).ino).toBe(inode);
  });

  it('delete_file never deletes an outside file', async () => {
    const { context, outside } = await setUp();
    await race((index) => deleteFileTool.execute({ path: `d/${victims[index]}` }, context));
    expect(await outsideChanges(outside)).toEqual(untouched);
  });

  it('list_dir never lists the outside folder', async () => {
    const { context } = await setUp();
    const outputs = await race(() => listDirTool.execute({ path: 'd' }, context));
    expect(outputs.filter((output) => output.includes(OUTSIDE_ONLY)).length).toBe(0);
  });

  it('grep_search never searches the outside folder', async () => {
    const { context } = await setUp();
    const outputs = await race(() => grepSearchTool.execute({ query: MARKER, path: 'd' }, context));
    expect(outputs.filter((output) => output.includes(MARKER) && !output.startsWith('No matches')).length).toBe(0);
  });
});
