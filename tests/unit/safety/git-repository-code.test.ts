import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import { contextFor, git } from '../../support/git-attack.js';

let base: string;
let marker: string;
let evil: string;
/** Runs `command` the way the agent's execute_command does: run if SAFE, else left for a person. */
async function runIfSafe(root: string, command: string): Promise<{ level: string; reason: string; output?: string }> {
  const context = await contextFor(root);
  const risk = await executeCommandTool.classify!({ command }, context);
  if (risk.level !== 'SAFE') return risk;
  return { ...risk, output: (await executeCommandTool.execute({ command }, context)).output };
}

/** A repository at `root` with one committed file `a` under the `x` filter and diff drivers. */
async function repository(root: string): Promise<string> {
  await fs.mkdir(root, { recursive: true });
  git(root, 'init', '-q', '.');
  await fs.writeFile(path.join(root, '.gitattributes'), 'a filter=x diff=x\n');
  await fs.writeFile(path.join(root, 'a'), 'hello\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  return root;
}

/** Same size, newer time: git must re-read (and so clean-filter) the file to know whether it changed. */
async function touchLater(file: string): Promise<void> {
  const later = new Date(Date.now() + 10_000);
  await fs.utimes(file, later, later);
}

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-git-code-'));
  marker = path.join(base, 'marker');
  evil = path.join(base, 'evil.sh');
  await fs.writeFile(evil, `#!/bin/sh\necho "ran $*" >> ${marker}\ncat\n`);
  await fs.chmod(evil, 0o755);
});
afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});
beforeEach(async () => {
  await fs.rm(marker, { force: true });
});

describe('a submodule with a hostile filter in its own config', () => {
  let root: string;
  beforeAll(async () => {
    const origin = await repository(path.join(base, 'sub-origin'));
    root = await repository(path.join(base, 'super'));
    git(root, 'submodule', 'add', '-q', origin, 'sub');
    // `ignore = none` in .gitmodules asks git to look into the submodule whatever diff.ignoreSubmodules says.
    git(root, 'config', '--file', '.gitmodules', 'submodule.sub.ignore', 'none');
    git(root, 'add', '.gitmodules');
    git(root, 'commit', '-qm', 'sub');
    git(root, 'config', '--file', path.join(root, '.git', 'modules', 'sub', 'config'), 'filter.x.clean', evil);
  });

  it('SAFE git status and git diff never start the submodule filter, wherever git finds `ignore = none`', async () => {
    await touchLater(path.join(root, 'sub', 'a'));
    // Plain git would run the submodule's filter: the repository really is hostile.
    git(root, 'status');
    expect(existsSync(marker)).toBe(true);
    await fs.rm(marker);

    // .gitmodules in the worktree; then only in the index and HEAD (git reads those when the file is gone);
    // then the superproject's own config.
    for (const step of ['worktree', 'index', 'config'] as const) {
      if (step === 'index') await fs.rm(path.join(root, '.gitmodules'));
      if (step === 'config') git(root, 'config', 'submodule.sub.ignore', 'none');
      await touchLater(path.join(root, 'sub', 'a'));
      for (const command of ['git status', 'git diff']) {
        const result = await runIfSafe(root, command);
        expect(result.level, `${step}: ${command}`).toBe('SAFE');
        expect(result.output, `${step}: ${command}`).toMatch(/^exit 0/);
      }
      expect(existsSync(marker), step).toBe(false);
    }
  });

  it('a .gitmodules that cannot be read stops git instead of letting it look into submodules', async () => {
    await fs.writeFile(path.join(root, '.gitmodules'), '[submodule "sub"]\n\tignore = none\n[[[\n');
    await touchLater(path.join(root, 'sub', 'a'));
    expect((await runIfSafe(root, 'git status')).output).toMatch(/^exit 128[\s\S]*tsuka-gitmodules-unreadable/);
    expect(existsSync(marker)).toBe(false);
    await fs.rm(path.join(root, '.gitmodules'));
  });

  it.each(['git status --ignore-submodules=none', 'git diff --submodule=diff', 'git log -p --submodule=diff', 'git show --recurse-submodules'])(
    '%s (an option that sends git into submodules) asks instead',
    async (command) => {
      const result = await runIfSafe(root, command);
      expect(result.level).toBe('DANGEROUS');
      expect(result.reason).toMatch(/submodule/);
    },
  );
});

describe('a repository whose .git is a gitfile (`gitdir: gd`)', () => {
  it('a config written into gd/ after a SAFE verdict is read again: git diff asks instead of running diff.external', async () => {
    const root = await repository(path.join(base, 'gitfile'));
    await fs.rename(path.join(root, '.git'), path.join(root, 'gd'));
    await fs.writeFile(path.join(root, '.git'), 'gitdir: gd\n');
    await fs.appendFile(path.join(root, 'a'), 'world\n');
    expect((await runIfSafe(root, 'git diff')).output).toContain('+world');

    // What a RESTRICTED command (a build, a test run) could do: it may write any workspace file.
    await fs.appendFile(path.join(root, 'gd', 'config'), `[diff]\n\texternal = ${evil}\n`);
    expect(await runIfSafe(root, 'git diff')).toMatchObject({ level: 'DANGEROUS', reason: expect.stringContaining('diff.external') });
    expect(existsSync(marker)).toBe(false);
  });
});
