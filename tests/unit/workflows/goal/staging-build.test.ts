/**
 * Issue 25, "staging that can build": a parallel /goal step's staging copy runs the project's tests
 * (its `node_modules` reached read-only) and git (`git diff`/`git status` against its own changes),
 * and whatever it does with git lands in the copy's own git folder, never in the real repository.
 * Each case runs under the env-only fallback; the bubblewrap cases skip where bwrap cannot run.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../src/core/logger.js';
import { createBubblewrapSandbox } from '../../../../src/core/safety/bubblewrap-sandbox.js';
import { createChildEnv } from '../../../../src/core/safety/child-env.js';
import type { CommandSandbox } from '../../../../src/core/safety/command-sandbox.js';
import { createFallbackSandbox } from '../../../../src/core/safety/fallback-sandbox.js';
import { writeFileBeneath } from '../../../../src/core/tools/atomic-write.js';
import { executeCommandTool } from '../../../../src/core/tools/impl/execute-command.js';
import { mergeStagings } from '../../../../src/core/workflows/goal/merge-stagings.js';
import { createStaging, type Staging } from '../../../../src/core/workflows/goal/parallel-workspace.js';
import { stagingConfig } from '../../../../src/core/workflows/goal/staging-git.js';
import { BUBBLEWRAP_UNAVAILABLE } from '../../../support/test-sandbox.js';
import { writeTinyNodeProject } from '../../../support/tiny-node-project.js';

let base: string;
let workspace: string;
let stagingRoot: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'tsuka-staging-build-')));
  workspace = path.join(base, 'workspace');
  // As /goal does: the staging folder lives in the workspace's `.tsuka`.
  stagingRoot = path.join(workspace, '.tsuka', 'staging', 'run-1');
  await writeTinyNodeProject(workspace);
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

const git = (...args: string[]) => execFileSync('git', ['-C', workspace, ...args], { encoding: 'utf8' });

/** What the real repository is: HEAD, every ref, the index, and every object file. */
async function realRepository(): Promise<string> {
  const objects = (await fs.readdir(path.join(workspace, '.git', 'objects'), { recursive: true })).sort().join(',');
  const index = await fs.readFile(path.join(workspace, '.git', 'index'));
  const config = await fs.readFile(path.join(workspace, '.git', 'config'), 'utf8');
  return [git('rev-parse', 'HEAD'), git('for-each-ref'), index.toString('base64'), objects, config].join('\n');
}

/** The step's edit, as the file tools write (a replaced file): the staging's files may be hard links (issue 42). */
async function writeInStaging(staging: Staging, relative: string, content: string): Promise<void> {
  await writeFileBeneath(staging.workspace, path.join(staging.root, relative), content);
}

async function run(staging: Staging, sandbox: CommandSandbox, command: string): Promise<string> {
  const result = await executeCommandTool.execute(
    { command },
    {
      workspace: staging.workspace,
      signal: new AbortController().signal,
      childEnv: createChildEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base, LANG: 'C' }),
      sandbox,
      maskSecrets: (text) => text,
      runId: 'run-1',
      agentName: 'geordi',
      logger: silentLogger,
      services: { cwd: staging.root },
    },
  );
  return result.output;
}

const skipped = (reason: string | undefined) => (reason === undefined ? '' : ` (skipped: ${reason})`);
const sandboxes: [string, () => CommandSandbox, string | undefined][] = [
  ['the env-only fallback', () => createFallbackSandbox(), undefined],
  ['bubblewrap', () => createBubblewrapSandbox({ network: 'none', hiddenPaths: [] }), BUBBLEWRAP_UNAVAILABLE],
];

describe.each(sandboxes)('a staging copy under %s', (_name, makeSandbox, unavailable) => {
  it.skipIf(unavailable !== undefined)(`runs the project's tests with its node_modules and shows its change in git diff${skipped(unavailable)}`, async () => {
    const staging = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    const sandbox = makeSandbox();
    await writeInStaging(staging, 'greet.js', 'module.exports = (name) => `Hi, ${name}!`;\n');

    const tests = await run(staging, sandbox, 'npm test 2>&1');
    expect(tests).toMatch(/^exit 0/);
    expect(tests).toContain('fake-assert says: Hi, team!');

    const diff = await run(staging, sandbox, 'git diff');
    expect(diff).toMatch(/^exit 0/);
    expect(diff).toContain('-module.exports = (name) => `Hello, ${name}!`;');
    expect(diff).toContain('+module.exports = (name) => `Hi, ${name}!`;');
    const status = await run(staging, sandbox, 'git status --short');
    // Only the step's change: not the linked node_modules, not the copy's own .git.
    expect(status.split('\n').slice(1)).toEqual([' M greet.js']);
    // The link and the git folder are never merged back; the change is.
    expect((await staging.diff()).map((change) => change.path)).toEqual(['greet.js']);
    const report = await mergeStagings(workspace, [staging]);
    expect(report.applied).toEqual(['greet.js']);
    expect((await fs.lstat(path.join(workspace, 'node_modules'))).isDirectory()).toBe(true);
    await staging.cleanup();
  });

  it.skipIf(unavailable !== undefined)(`keeps git add, commit and gc in the copy: the real repository is not changed${skipped(unavailable)}`, async () => {
    const before = await realRepository();
    const staging = await createStaging(workspace, stagingRoot, 'step-3-worf');
    const sandbox = makeSandbox();
    await writeInStaging(staging, 'greet.js', 'module.exports = () => "changed";\n');
    const committed = await run(
      staging,
      sandbox,
      'git add -A && git -c user.name=a -c user.email=a@b commit -qm step && git update-ref refs/heads/other HEAD && git gc -q --prune=now && git log --oneline | wc -l',
    );
    expect(committed).toMatch(/^exit 0\n2$/);
    expect(await realRepository()).toBe(before);
    expect(git('status', '--porcelain', '--', '.', ':!.tsuka')).toBe('');
  });
});

describe('the real .git under bubblewrap', () => {
  it.skipIf(BUBBLEWRAP_UNAVAILABLE !== undefined)(`cannot be written from a staging copy, nor node_modules${skipped(BUBBLEWRAP_UNAVAILABLE)}`, async () => {
    const before = await realRepository();
    const staging = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    const sandbox = createBubblewrapSandbox({ network: 'none', hiddenPaths: [] });
    const real = (relative: string) => path.join(workspace, relative);
    // What the sandbox shows of the real repository (its object store) is read-only.
    for (const attempt of [
      `echo x > ${real('.git/objects/pwned')}`,
      `rm -rf ${real('.git/objects/info')}`,
      `echo x > ${real('node_modules/fake-assert/index.js')}`,
      'echo x > node_modules/fake-assert/index.js',
    ]) {
      // stdout and stderr may arrive in either order.
      const said = `${attempt}: ${await run(staging, sandbox, `${attempt}; echo done $?`)}`;
      expect(said).toContain('Read-only file system');
      expect(said).toMatch(/^done [12]$/m);
    }
    // The rest of it is not there at all: a write lands in the sandbox's own scratch space, if anywhere.
    for (const attempt of [`echo '[core] fsmonitor = touch /tmp/pwned' >> ${real('.git/config')}`, `echo x > ${real('.git/HEAD')}`, `ls ${real('.git/refs')}`])
      await run(staging, sandbox, attempt);
    expect(await realRepository()).toBe(before);
    expect(await fs.readFile(real('node_modules/fake-assert/index.js'), 'utf8')).toContain('fake-assert says');
  });
});

describe('the staging git folder', () => {
  it('takes no driver, hook, alias or include of the real config, only its format settings', () => {
    const real = [
      '[core]',
      '\trepositoryformatversion = 1',
      '\tfilemode = false',
      '\tfsmonitor = touch /tmp/pwned',
      '\thooksPath = /tmp/hooks',
      '[extensions]',
      '\tobjectFormat = sha256',
      '[include]',
      '\tpath = /tmp/evil.config',
      '[diff "x"]',
      '\ttextconv = touch /tmp/pwned',
      '[alias]',
      '\tst = !touch /tmp/pwned',
    ].join('\n');
    expect(stagingConfig(real)).toBe('[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tfilemode = false\n[extensions]\n\tobjectformat = sha256\n');
  });

  it('is left out when the workspace is no repository: the step sees "not a git repository" as before', async () => {
    await fs.rm(path.join(workspace, '.git'), { recursive: true });
    const staging = await createStaging(workspace, stagingRoot, 'step-2-geordi');
    await expect(fs.lstat(path.join(staging.root, '.git'))).rejects.toThrow(/ENOENT/);
    expect(await run(staging, createFallbackSandbox(), 'git status')).toMatch(/not a git repository/i);
  });
});
