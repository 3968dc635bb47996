import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import { contextFor, git } from '../../support/git-attack.js';

/** A repository whose .git/config names a program for every hook git offers a repository. */
let base: string;
let marker: string;
/** A repository with one committed file (`a`, under the `x` filter and diff drivers) and a change to it. */
async function hostileRepository(name: string, config: Record<string, string>): Promise<string> {
  const root = path.join(base, name);
  await fs.mkdir(root);
  git(root, 'init', '-q', '.');
  await fs.writeFile(path.join(root, '.gitattributes'), 'a filter=x diff=x\n');
  await fs.writeFile(path.join(root, 'a'), 'hello\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  await fs.appendFile(path.join(root, 'a'), 'world\n');
  for (const [key, value] of Object.entries(config)) git(root, 'config', key, value);
  return root;
}

/** Runs `command` the way the agent's execute_command does: run if SAFE, else left for a person. */
async function runIfSafe(root: string, command: string): Promise<{ level: string; reason: string; output?: string }> {
  const context = await contextFor(root);
  const risk = await executeCommandTool.classify!({ command }, context);
  if (risk.level !== 'SAFE') return risk;
  return { ...risk, output: (await executeCommandTool.execute({ command }, context)).output };
}

const SAFE_GIT = ['git status', 'git diff', 'git log -p', 'git show', 'git show HEAD:a', 'git diff HEAD', 'git log --stat', 'git branch'];

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-hostile-git-'));
  marker = path.join(base, 'marker');
  const evil = path.join(base, 'evil.sh');
  await fs.writeFile(evil, `#!/bin/sh\necho "ran $*" >> ${marker}\ncat\n`);
  await fs.chmod(evil, 0o755);
});
afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});
beforeEach(async () => {
  await fs.rm(marker, { force: true });
});

describe('SAFE git commands run no program named in the repository config', () => {
  it('with filter.x.clean/smudge/process and diff.x.textconv: SAFE, runs, and the programs are switched off', async () => {
    const evil = path.join(base, 'evil.sh');
    const root = await hostileRepository('drivers', {
      'filter.x.clean': evil,
      'filter.x.smudge': evil,
      'filter.x.process': evil,
      'filter.x.required': 'true',
      'diff.x.textconv': evil,
      'core.fsmonitor': evil,
      'core.pager': evil,
      'log.showSignature': 'true',
      'gpg.program': evil,
    });
    // Without TSUKA's overrides, plain git would run them: the test repository really is hostile.
    expect(() => git(root, 'diff')).toThrow();
    expect(existsSync(marker)).toBe(true);
    await fs.rm(marker);

    for (const command of SAFE_GIT) {
      const result = await runIfSafe(root, command);
      expect(result.level, `${command}: ${result.reason}`).toBe('SAFE');
      expect(result.output, command).toMatch(/^exit 0/);
    }
    expect((await runIfSafe(root, 'git diff')).output).toContain('+world');
    expect(existsSync(marker)).toBe(false);
  });

  it('an approved RESTRICTED `git add` does not run the clean filter either', async () => {
    const root = await hostileRepository('add', { 'filter.x.clean': path.join(base, 'evil.sh'), 'filter.x.required': 'true' });
    const context = await contextFor(root);
    expect((await executeCommandTool.classify!({ command: 'git add a' }, context)).level).toBe('RESTRICTED');
    expect((await executeCommandTool.execute({ command: 'git add a' }, context)).output).toMatch(/^exit 0/);
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    ['diff.external', { 'diff.external': 'EVIL' }],
    ['diff.x.command', { 'diff.x.command': 'EVIL' }],
  ])('with %s (which no command-scope value can switch off): every SAFE git command asks instead, naming the key', async (key, config) => {
    const evil = path.join(base, 'evil.sh');
    const root = await hostileRepository(`unneutralisable-${key}`, Object.fromEntries(Object.entries(config).map(([name]) => [name, evil])));
    for (const command of SAFE_GIT) {
      const result = await runIfSafe(root, command);
      expect(result.level, command).toBe('DANGEROUS');
      expect(result.reason).toContain(key);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('a program set through an included config file is seen too', async () => {
    const root = await hostileRepository('include', {});
    await fs.writeFile(path.join(root, '.git', 'extra.cfg'), `[diff]\n\texternal = ${path.join(base, 'evil.sh')}\n`);
    git(root, 'config', 'include.path', 'extra.cfg');
    expect(await runIfSafe(root, 'git diff')).toMatchObject({ level: 'DANGEROUS', reason: expect.stringContaining('diff.external') });
    expect(existsSync(marker)).toBe(false);
  });

  it('a config changed after a SAFE verdict is read again, even with its modification time set back', async () => {
    const root = await hostileRepository('later', {});
    expect((await runIfSafe(root, 'git diff')).level).toBe('SAFE');
    const config = path.join(root, '.git', 'config');
    const before = await fs.stat(config);
    git(root, 'config', 'diff.external', path.join(base, 'evil.sh'));
    await fs.utimes(config, before.atime, before.mtime);
    expect(await runIfSafe(root, 'git diff')).toMatchObject({ level: 'DANGEROUS', reason: expect.stringContaining('diff.external') });
    expect(existsSync(marker)).toBe(false);
  });

  it('an included config file changed later is seen (a config with includes is never answered from memory)', async () => {
    const root = await hostileRepository('include-later', {});
    const extra = path.join(root, '.git', 'extra.cfg');
    await fs.writeFile(extra, '[core]\n\tquotepath = false\n');
    git(root, 'config', 'include.path', 'extra.cfg');
    expect((await runIfSafe(root, 'git diff')).level).toBe('SAFE');
    await fs.writeFile(extra, `[diff]\n\texternal = ${path.join(base, 'evil.sh')}\n`);
    expect(await runIfSafe(root, 'git diff')).toMatchObject({ level: 'DANGEROUS', reason: expect.stringContaining('diff.external') });
    expect(existsSync(marker)).toBe(false);
  });
});
