import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceEscapeError } from '../../../src/core/errors.js';
import { deleteFileTool } from '../../../src/core/tools/impl/delete-file.js';
import { editFileTool } from '../../../src/core/tools/impl/edit-file.js';
import { grepSearchTool } from '../../../src/core/tools/impl/grep-search.js';
import { listDirTool } from '../../../src/core/tools/impl/list-dir.js';
import { readFileTool } from '../../../src/core/tools/impl/read-file.js';
import { writeFileTool } from '../../../src/core/tools/impl/write-file.js';
import { createTestToolContext, type TestToolContext } from './tool-test-context.js';

let test: TestToolContext;
beforeEach(async () => {
  test = await createTestToolContext();
});
afterEach(() => test.cleanup());

const numbered = (count: number): string => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n');

describe('read_file', () => {
  it('returns numbered lines and the size', async () => {
    await writeFile(join(test.root, 'app.ts'), 'const a = 1;\nconst b = 2;\n');
    const result = await readFileTool.execute({ path: 'app.ts' }, test.context);
    expect(result.output).toBe('app.ts — lines 1–2 of 2 (26 B)\n1\tconst a = 1;\n2\tconst b = 2;');
    expect(result.display).toBe('26 B');
  });

  it('pages with offset and limit and says how to continue', async () => {
    await writeFile(join(test.root, 'long.txt'), numbered(1000));
    const first = await readFileTool.execute({ path: 'long.txt' }, test.context);
    expect(first.output).toContain('lines 1–400 of 1000');
    expect(first.output).toMatch(/continue with offset=401\]$/);
    const second = await readFileTool.execute({ path: 'long.txt', offset: 401, limit: 10 }, test.context);
    expect(second.output.split('\n').slice(1, 3)).toEqual(['401\tline 401', '402\tline 402']);
    expect(second.output).toContain('continue with offset=411');
    const last = await readFileTool.execute({ path: 'long.txt', offset: 995 }, test.context);
    expect(last.output).not.toContain('continue with');
    await expect(readFileTool.execute({ path: 'long.txt', offset: 2000 }, test.context)).rejects.toThrow(
      'offset 2000 is past the end of long.txt, which has 1000 lines.',
    );
  });

  it('refuses binary files, folders and missing files with a sentence', async () => {
    await writeFile(join(test.root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a]));
    await mkdir(join(test.root, 'src'));
    await expect(readFileTool.execute({ path: 'logo.png' }, test.context)).rejects.toThrow('logo.png is a binary file (8 B); read_file only shows text.');
    await expect(readFileTool.execute({ path: 'src' }, test.context)).rejects.toThrow(/is a directory; use list_dir/);
    await expect(readFileTool.execute({ path: 'nope.txt' }, test.context)).rejects.toThrow('nope.txt does not exist.');
  });

  it('refuses a symlink that leads out of the workspace', async () => {
    await writeFile(join(test.outside, 'secret.txt'), 'top secret');
    await symlink(join(test.outside, 'secret.txt'), join(test.root, 'link.txt'));
    await expect(readFileTool.execute({ path: 'link.txt' }, test.context)).rejects.toBeInstanceOf(WorkspaceEscapeError);
    await expect(readFileTool.execute({ path: '../outside/secret.txt' }, test.context)).rejects.toBeInstanceOf(WorkspaceEscapeError);
  });
});

describe('write_file', () => {
  it('creates parent folders and reports the size', async () => {
    const result = await writeFileTool.execute({ path: 'src/deep/new.ts', content: 'export {};\n' }, test.context);
    expect(await readFile(join(test.root, 'src/deep/new.ts'), 'utf8')).toBe('export {};\n');
    expect(result.output).toBe('Created src/deep/new.ts: 11 B, 1 lines.');
  });

  it('replaces atomically (no temp file left) and appends when asked', async () => {
    await writeFileTool.execute({ path: 'notes.md', content: 'one\n' }, test.context);
    await writeFileTool.execute({ path: 'notes.md', content: 'two\n' }, test.context);
    await writeFileTool.execute({ path: 'notes.md', content: 'three\n', append: true }, test.context);
    expect(await readFile(join(test.root, 'notes.md'), 'utf8')).toBe('two\nthree\n');
    expect(await readdir(test.root)).toEqual(['notes.md']);
  });

  it('previews path, size and a diff of an existing file', async () => {
    await writeFile(join(test.root, 'config.json'), '{\n  "port": 80,\n  "debug": false\n}\n');
    const preview = await writeFileTool.preview({ path: 'config.json', content: '{\n  "port": 8080,\n  "debug": false\n}\n' }, test.context);
    expect(preview.summary).toBe('write_file config.json');
    expect(preview.details).toEqual([
      'path: config.json',
      'size: 37 B (4 lines)',
      'replaces an existing 35 B file',
      '@@ line 2: -1 +1 @@',
      '-   "port": 80,',
      '+   "port": 8080,',
    ]);
  });

  it('refuses to write through a symlinked folder that leads outside', async () => {
    await symlink(test.outside, join(test.root, 'escape'));
    await expect(writeFileTool.execute({ path: 'escape/evil.sh', content: 'x' }, test.context)).rejects.toBeInstanceOf(WorkspaceEscapeError);
    expect(await readdir(test.outside)).toEqual([]);
  });
});

describe('edit_file', () => {
  beforeEach(async () => {
    await writeFile(join(test.root, 'app.ts'), 'function a() {\n  return 1;\n}\nfunction b() {\n  return 1;\n}\n');
  });

  it('replaces the single occurrence and says where', async () => {
    const result = await editFileTool.execute(
      { path: 'app.ts', targetContent: 'function b() {\n  return 1;', replacementContent: 'function b() {\n  return 2;' },
      test.context,
    );
    expect(await readFile(join(test.root, 'app.ts'), 'utf8')).toBe('function a() {\n  return 1;\n}\nfunction b() {\n  return 2;\n}\n');
    expect(result.output).toBe('Edited app.ts at line 4: replaced 2 line(s) with 2.');
  });

  it('refuses several occurrences, saying how many and where', async () => {
    await expect(editFileTool.execute({ path: 'app.ts', targetContent: 'return 1;', replacementContent: 'return 3;' }, test.context)).rejects.toThrow(
      'targetContent occurs 2 times in app.ts (lines 2, 5); include more surrounding lines so it matches exactly once.',
    );
  });

  it('refuses zero occurrences and hints at whitespace', async () => {
    await expect(editFileTool.execute({ path: 'app.ts', targetContent: 'return 42;', replacementContent: '' }, test.context)).rejects.toThrow(
      /not found in app\.ts \(0 occurrences\)/,
    );
    await expect(editFileTool.execute({ path: 'app.ts', targetContent: '    function a() {  ', replacementContent: '' }, test.context)).rejects.toThrow(
      /does match once leading\/trailing whitespace is ignored/,
    );
    expect(await readFile(join(test.root, 'app.ts'), 'utf8')).toContain('function a() {\n  return 1;');
  });

  it('previews the -/+ lines', async () => {
    const preview = await editFileTool.preview({ path: 'app.ts', targetContent: 'function a() {', replacementContent: 'function alpha() {' }, test.context);
    expect(preview.details).toEqual(['path: app.ts at line 1', '- function a() {', '+ function alpha() {']);
  });
});

describe('delete_file', () => {
  it('deletes a file and an empty folder, and refuses a folder with content', async () => {
    await mkdir(join(test.root, 'empty'));
    await mkdir(join(test.root, 'full'));
    await writeFile(join(test.root, 'full/a.txt'), 'a');
    await writeFile(join(test.root, 'old.log'), 'log');
    expect((await deleteFileTool.execute({ path: 'old.log' }, test.context)).output).toBe('Deleted old.log (3 B).');
    expect((await deleteFileTool.execute({ path: 'empty' }, test.context)).output).toBe('Deleted the empty folder empty.');
    await expect(deleteFileTool.execute({ path: 'full' }, test.context)).rejects.toThrow(/not empty; delete_file only removes files and empty folders/);
    expect(await readdir(test.root)).toEqual(['full']);
  });

  it('never deletes the workspace root', async () => {
    await expect(deleteFileTool.execute({ path: '.' }, test.context)).rejects.toThrow('delete_file never deletes the workspace root.');
    await expect(deleteFileTool.execute({ path: test.root }, test.context)).rejects.toThrow(/workspace root/);
    expect((await stat(test.root)).isDirectory()).toBe(true);
  });

  it('refuses a link that leads outside and removes an inside link without its target', async () => {
    await writeFile(join(test.outside, 'keep.txt'), 'keep');
    await symlink(join(test.outside, 'keep.txt'), join(test.root, 'out-link'));
    await expect(deleteFileTool.execute({ path: 'out-link' }, test.context)).rejects.toBeInstanceOf(WorkspaceEscapeError);
    expect(await readFile(join(test.outside, 'keep.txt'), 'utf8')).toBe('keep');

    await writeFile(join(test.root, 'target.txt'), 'target');
    await symlink(join(test.root, 'target.txt'), join(test.root, 'in-link'));
    await deleteFileTool.execute({ path: 'in-link' }, test.context);
    expect((await readdir(test.root)).sort()).toEqual(['out-link', 'target.txt']);
  });

  it('previews the path to delete', async () => {
    await writeFile(join(test.root, 'old.log'), 'log');
    expect(await deleteFileTool.preview({ path: 'old.log' }, test.context)).toEqual({
      summary: 'delete_file old.log',
      details: ['delete: old.log (file, 3 B)'],
    });
  });
});

describe('list_dir', () => {
  it('lists folders first with /, then files with sizes', async () => {
    await mkdir(join(test.root, 'src'));
    await mkdir(join(test.root, 'docs'));
    await writeFile(join(test.root, 'README.md'), 'x'.repeat(1300));
    await writeFile(join(test.root, 'a.txt'), 'a');
    const result = await listDirTool.execute({}, test.context);
    expect(result.output).toBe('./ (4 entries)\ndocs/\nsrc/\nREADME.md  1.3 KB\na.txt  1 B');
  });

  it('caps at 500 entries with a note', async () => {
    await Promise.all(Array.from({ length: 503 }, (_, index) => writeFile(join(test.root, `f${String(index).padStart(3, '0')}.txt`), '')));
    const result = await listDirTool.execute({ path: '.' }, test.context);
    expect(result.output.split('\n')).toHaveLength(1 + 500 + 1);
    expect(result.output).toContain('[showing the first 500 of 503 entries; list a subfolder to see more]');
  });

  it('refuses a symlinked folder that leads outside', async () => {
    await symlink(test.outside, join(test.root, 'escape'));
    await expect(listDirTool.execute({ path: 'escape' }, test.context)).rejects.toBeInstanceOf(WorkspaceEscapeError);
  });
});

describe('grep_search', () => {
  beforeEach(async () => {
    await mkdir(join(test.root, 'src'));
    await mkdir(join(test.root, 'node_modules/lib'), { recursive: true });
    await writeFile(join(test.root, 'src/app.ts'), 'import x from "y";\n// TODO: fix the Parser\nconst parser = 1;\n');
    await writeFile(join(test.root, 'src/other.ts'), 'nothing here\n');
    await writeFile(join(test.root, 'node_modules/lib/index.js'), 'parser inside node_modules\n');
    await writeFile(join(test.root, 'image.bin'), Buffer.from([0, 1, 2, 0x70, 0x61, 0x72, 0x73, 0x65, 0x72]));
    await writeFile(join(test.root, 'huge.txt'), `parser\n${'x'.repeat(1024 * 1024)}`);
  });

  it('finds literal text case-insensitively as file:line: text, skipping node_modules, binaries and big files', async () => {
    const result = await grepSearchTool.execute({ query: 'PARSER' }, test.context);
    expect(result.output).toBe('src/app.ts:2: // TODO: fix the Parser\nsrc/app.ts:3: const parser = 1;');
    expect(result.display).toBe('2 matches');
  });

  it('treats the query literally and says when nothing matched', async () => {
    const result = await grepSearchTool.execute({ query: 'pars.r', path: 'src' }, test.context);
    expect(result.output).toBe('No matches for "pars.r" in src (2 files searched).');
  });

  it('caps at 200 matches with a note', async () => {
    await writeFile(join(test.root, 'src/many.txt'), Array.from({ length: 250 }, () => 'needle').join('\n'));
    const result = await grepSearchTool.execute({ query: 'needle' }, test.context);
    expect(result.output.split('\n').filter((line) => line.startsWith('src/many.txt:'))).toHaveLength(200);
    expect(result.output).toContain('[stopped at 200 matches; narrow the path or the query]');
  });
});

describe('paths the descriptor walk meets', () => {
  it('read_file says the root is a folder, and refuses a fifo without blocking', async () => {
    await expect(readFileTool.execute({ path: '.' }, test.context)).rejects.toThrow('. is a directory; use list_dir');
    try {
      execFileSync('mkfifo', [join(test.root, 'pipe')]);
    } catch (error) {
      // mkfifo comes with coreutils; without it there is no fifo to try.
      expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
      return;
    }
    await expect(readFileTool.execute({ path: 'pipe' }, test.context)).rejects.toThrow('pipe is not a regular file');
  });

  it('write_file writes through a link inside the workspace to its target, creating the target', async () => {
    await mkdir(join(test.root, 'real'));
    await symlink(join(test.root, 'real', 'new.txt'), join(test.root, 'alias.txt'));
    await writeFileTool.execute({ path: 'alias.txt', content: 'through the link\n' }, test.context);
    expect(await readFile(join(test.root, 'real', 'new.txt'), 'utf8')).toBe('through the link\n');
  });

  it('write_file refuses a file standing where a folder should be', async () => {
    await writeFile(join(test.root, 'plain.txt'), 'x');
    await expect(writeFileTool.execute({ path: 'plain.txt/below.txt', content: 'y' }, test.context)).rejects.toThrow(
      'A folder on the way to plain.txt/below.txt is a file.',
    );
    expect(await readFile(join(test.root, 'plain.txt'), 'utf8')).toBe('x');
  });
});
