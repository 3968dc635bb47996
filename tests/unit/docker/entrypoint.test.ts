import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync, chmodSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ENTRYPOINT = path.resolve(import.meta.dirname, '../../../docker/entrypoint.sh');
const SECRET = 'xoxb-entrypoint-test-secret-value';
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
const hasSetpriv = existsSync('/usr/bin/setpriv');
// Root writes everywhere, so the permission case runs as `nobody` through setpriv when the tests run as root.
const canTestUnwritable = !isRoot || hasSetpriv;

interface Layout {
  root: string;
  app: string;
  data: string;
  workspace: string;
}

let layout: Layout;

beforeEach(async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-entrypoint-'));
  layout = { root, app: path.join(root, 'app'), data: path.join(root, 'data'), workspace: path.join(root, 'workspace') };
  mkdirSync(path.join(layout.app, 'bin'), { recursive: true });
  mkdirSync(layout.data);
  mkdirSync(layout.workspace);
  // Stands in for the real CLI: proves which arguments reached node.
  writeFileSync(path.join(layout.app, 'bin', 'tsuka.js'), 'console.log(JSON.stringify({ argv: process.argv.slice(2), pid: process.pid }));\n');
});

afterEach(async () => {
  await rm(layout.root, { recursive: true, force: true });
});

function run(args: string[], overrides: Partial<Layout> = {}, script = ENTRYPOINT, asUser?: number): SpawnSyncReturns<string> {
  const paths = { ...layout, ...overrides };
  const environment = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    TSUKA_APP_DIR: paths.app,
    TSUKA_DATA_DIR: paths.data,
    TSUKA_WORKSPACE: paths.workspace,
    TSUKA_SLACK_BOT_TOKEN: SECRET,
  };
  const command =
    asUser === undefined ? ['sh', script, ...args] : ['setpriv', `--reuid=${asUser}`, `--regid=${asUser}`, '--clear-groups', 'sh', script, ...args];
  return spawnSync(command[0]!, command.slice(1), { env: environment, encoding: 'utf8', cwd: layout.root });
}

function argvSeenByNode(result: SpawnSyncReturns<string>): string[] {
  const parsed: unknown = JSON.parse(result.stdout.trim());
  if (typeof parsed !== 'object' || parsed === null || !('argv' in parsed) || !Array.isArray(parsed.argv)) {
    throw new Error(`unexpected output from the fake CLI: ${result.stdout}`);
  }
  return parsed.argv.map(String);
}

describe('docker/entrypoint.sh', () => {
  it('is valid POSIX sh', () => {
    const result = spawnSync('sh', ['-n', ENTRYPOINT], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('runs `start` through node with every argument intact', () => {
    const result = run(['start', '--verbose', 'two words']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(argvSeenByNode(result)).toEqual(['start', '--verbose', 'two words']);
  });

  it('replaces the shell with node, so the SIGTERM tini forwards reaches node itself', () => {
    const result = run(['start']);
    const parsed = JSON.parse(result.stdout.trim()) as { pid: unknown };
    expect(parsed.pid).toBe(result.pid);
  });

  it.each(['ask', 'doctor', 'help'])('runs `%s` through the CLI', (command) => {
    const result = run([command, 'geordi']);
    expect(result.status).toBe(0);
    expect(argvSeenByNode(result)).toEqual([command, 'geordi']);
  });

  it('starts the bot when no command is given', () => {
    const result = run([]);
    expect(result.status).toBe(0);
    expect(argvSeenByNode(result)).toEqual(['start']);
  });

  it('leaves no probe file behind in the volumes', () => {
    run(['start']);
    expect(readdirSync(layout.data)).toEqual([]);
    expect(readdirSync(layout.workspace)).toEqual([]);
  });

  it('creates a missing volume directory it is allowed to create', () => {
    const data = path.join(layout.root, 'fresh', 'data');
    const result = run(['start'], { data });
    expect(result.status).toBe(0);
    expect(existsSync(data)).toBe(true);
  });

  it('execs any other command as given, keeping its exit status', () => {
    const echo = run(['echo', 'hello from', 'the image']);
    expect(echo.status).toBe(0);
    expect(echo.stdout).toBe('hello from the image\n');
    const failing = run(['sh', '-c', 'exit 7']);
    expect(failing.status).toBe(7);
  });

  it('stops with the fix when a volume cannot be created, without running node', () => {
    const blocker = path.join(layout.root, 'a-file');
    writeFileSync(blocker, '');
    const data = path.join(blocker, 'data');
    const result = run(['start'], { data });
    expect(result.status).toBe(78);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(data);
    expect(result.stderr).toMatch(/mount a volume/);
  });

  it('still runs `doctor` when a volume is wrong, after naming the fix', () => {
    const blocker = path.join(layout.root, 'a-file');
    writeFileSync(blocker, '');
    const result = run(['doctor'], { workspace: path.join(blocker, 'workspace') });
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/workspace directory .* mount a volume/);
    expect(argvSeenByNode(result)).toEqual(['doctor']);
  });

  it.skipIf(!canTestUnwritable)('stops with a chown fix when the data volume is not writable (root: runs as nobody via setpriv)', () => {
    // Everything the unprivileged user must reach is opened up, except the data directory itself.
    chmodSync(layout.root, 0o755);
    chmodSync(layout.workspace, 0o777);
    chmodSync(layout.data, 0o555);
    const script = path.join(layout.root, 'entrypoint.sh');
    copyFileSync(ENTRYPOINT, script);
    chmodSync(script, 0o755);
    const result = isRoot ? run(['start'], {}, script, NOBODY) : run(['start'], {}, script);
    const uid = isRoot ? NOBODY : process.getuid?.();
    expect(result.status).toBe(78);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`the data directory ${layout.data} is not writable by uid ${uid}`);
    expect(result.stderr).toMatch(/chown -R \d+:\d+/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('never prints environment values, even when it fails', () => {
    const blocker = path.join(layout.root, 'a-file');
    writeFileSync(blocker, '');
    const results = [run(['start']), run(['start'], { data: path.join(blocker, 'data') })];
    for (const result of results) {
      expect(result.stdout + result.stderr).not.toContain(SECRET);
    }
  });
});
