/**
 * The bubblewrap sandbox with the real bwrap: what a command can see, write and reach, and that
 * Stop and timeouts still take down the whole tree inside the sandbox's PID namespace.
 */
import { createServer, type Server } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';
import { createBubblewrapSandbox } from '../../../src/core/safety/bubblewrap-sandbox.js';
import { createChildEnv } from '../../../src/core/safety/child-env.js';
import type { CommandSandbox } from '../../../src/core/safety/command-sandbox.js';
import { gitHardenedEnv } from '../../../src/core/safety/git-env.js';
import { runCommand, type RunCommandOptions } from '../../../src/core/safety/process-runner.js';
import { probeSandbox } from '../../../src/core/safety/select-sandbox.js';
import { waitForFile } from '../tools/tool-test-context.js';

const FAKE_SECRETS = {
  SLACK_BOT_TOKEN: 'xoxb-9999-8888-sandboxtestsecret',
  DISCORD_BOT_TOKEN: 'discord-sandbox-test-secret-value-0123456789',
  TSUKA_LLM_API_KEY: 'sk-sandbox-test-secret-key-0123456789',
};

// The bot's environment as the engine sees it: real variables plus its tokens.
const botEnvironment = { ...process.env, ...FAKE_SECRETS };
const unavailable = await probeSandbox(createBubblewrapSandbox({ network: true, hiddenPaths: [] }));

let base: string;
let root: string;
let data: string;
let home: string;
let sandbox: CommandSandbox;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'tsuka-bwrap-')));
  root = path.join(base, 'workspace');
  data = path.join(base, 'data');
  home = path.join(base, 'home');
  for (const folder of [root, data, home]) await mkdir(folder);
  await writeFile(path.join(data, 'tsuka.sqlite'), 'TRANSCRIPTS-OF-EVERY-RUN');
  await writeFile(path.join(home, '.netrc'), 'machine example.com password HOME-SECRET');
  sandbox = createBubblewrapSandbox({ network: true, hiddenPaths: [data, PACKAGE_ROOT, home] });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

function run(command: string, extra: Partial<RunCommandOptions> = {}) {
  return runCommand({ command, cwd: root, sandbox, env: createChildEnv(botEnvironment), timeoutMs: 20_000, ...extra });
}

/** Host pids whose command line holds `marker` (the host sees into the sandbox's PID namespace). */
function pidsWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A killed tree needs a moment to be reaped; poll /proc briefly (bounded), as process-runner's tests do. */
async function gone(marker: string, limitMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (pidsWith(marker).length > 0) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

function leaks(text: string): string[] {
  return Object.values(FAKE_SECRETS).filter((secret) => text.includes(secret));
}

describe.skipIf(unavailable !== undefined)(`bubblewrap sandbox${unavailable ? ` (skipped: bwrap does not work here: ${unavailable})` : ''}`, () => {
  it('no /proc/*/environ inside holds a secret of the bot, in plain, base64, reversed or via $PPID', async () => {
    expect(leaks(JSON.stringify(botEnvironment))).toHaveLength(3);
    const plain = await run('cat /proc/*/environ; cat /proc/$PPID/environ; cat /proc/1/environ');
    const encoded = await run('base64 -w0 /proc/*/environ; echo; base64 -w0 /proc/$PPID/environ');
    // One variable a line before rev: rev stops at the first NUL, so a bare environ showed only its first variable.
    const reversed = await run('for file in /proc/*/environ /proc/$PPID/environ; do tr "\\0" "\\n" < "$file" | rev; done');
    const processes = await run('ls /proc | grep -E "^[0-9]+$" | tr "\\n" " "');
    expect(plain.exitCode).toBe(0);
    expect(plain.output).toContain('PATH=');
    expect(leaks(plain.output)).toEqual([]);
    const decoded = encoded.output
      .split('\n')
      .map((line) => Buffer.from(line.trim(), 'base64').toString('utf8'))
      .join('\n');
    expect(decoded).toContain('PATH=');
    expect(leaks(decoded)).toEqual([]);
    expect([...reversed.output].reverse().join('')).toContain('PATH=');
    expect(leaks([...reversed.output].reverse().join(''))).toEqual([]);
    // Only the sandbox's own processes exist: the bot (this process) is not there to read.
    const pids = processes.output.trim().split(/\s+/).map(Number);
    expect(Math.max(...pids)).toBeLessThan(10);
    expect(pids).not.toContain(process.pid);
  });

  it('cannot read the data folder, the bot checkout or the bot home; the system is there read-only', async () => {
    const result = await run(
      `cat '${data}/tsuka.sqlite'; cat '${PACKAGE_ROOT}/package.json'; ls '${PACKAGE_ROOT}/src'; cat '${home}/.netrc'; ls /root; touch /usr/tsuka-probe-${process.pid} /etc/tsuka-probe-${process.pid}; echo done`,
    );
    expect(result.output).toContain('done');
    expect(result.output).not.toContain('TRANSCRIPTS-OF-EVERY-RUN');
    expect(result.output).not.toContain('tsuka-chat');
    expect(result.output).not.toContain('HOME-SECRET');
    expect(result.output).toMatch(/Read-only file system/);
    expect(existsSync(`/usr/tsuka-probe-${process.pid}`)).toBe(false);
  });

  it('covers a hidden folder that lies under a mirrored system folder (e.g. a checkout in /opt or /etc)', async () => {
    const underSystem = '/etc/apt';
    expect(readdirSync(underSystem).length).toBeGreaterThan(0);
    sandbox = createBubblewrapSandbox({ network: true, hiddenPaths: [underSystem] });
    const result = await run(`ls -A ${underSystem} | wc -l; ls /etc/passwd`);
    expect(result.output).toMatch(/^0\n\/etc\/passwd\n$/);
  });

  it('hides a hidden folder even when it lies inside the command root', async () => {
    const secretInside = path.join(root, 'private');
    await mkdir(secretInside);
    await writeFile(path.join(secretInside, 'key'), 'INSIDE-SECRET');
    sandbox = createBubblewrapSandbox({ network: true, hiddenPaths: [secretInside] });
    const result = await run('cat private/key; ls private | wc -l');
    expect(result.output).not.toContain('INSIDE-SECRET');
    // stdout and stderr come through two pipes: cat's complaint may land after the count.
    expect(result.output).toMatch(/^0$/m);
  });

  it('writes the workspace, keeps /tmp private, gives a home of its own, and runs node and git', async () => {
    const result = await run(
      `echo hello > made.txt && echo private > /tmp/tsuka-bwrap-private-${process.pid} && echo "home=$HOME" && node -e "console.log('node', 6 * 7)" && git init -q && git add made.txt && git status --short`,
      { env: gitHardenedEnv(createChildEnv(botEnvironment), root) },
    );
    expect(result.exitCode).toBe(0);
    expect(readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(`/tmp/tsuka-bwrap-private-${process.pid}`)).toBe(false);
    expect(result.output).toContain('home=/home/sandbox');
    expect(result.output).toContain('node 42');
    expect(result.output).toContain('A  made.txt');
    expect(existsSync(path.join(root, '.git/HEAD'))).toBe(true);
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((socket) => socket.end('hello from the host\n'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });
    const connect = () =>
      `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write('got ' + d)).on('error', (e) => { console.log('error ' + e.code); process.exit(1); })"`;

    it('reaches a 127.0.0.1 listener when the network is on', async () => {
      const result = await run(connect());
      expect(result.output).toContain('got hello from the host');
    });

    it('is cut off by the setting and by a role that turns it off', async () => {
      sandbox = createBubblewrapSandbox({ network: false, hiddenPaths: [] });
      const bySetting = await run(connect());
      expect(bySetting.output).toMatch(/error ECONNREFUSED/);
      expect(bySetting.exitCode).toBe(1);
      sandbox = createBubblewrapSandbox({ network: true, hiddenPaths: [] });
      const byRole = await run(connect(), { network: false });
      expect(byRole.output).toMatch(/error ECONNREFUSED/);
    });
  });

  describe('stopping', () => {
    const treeCommand = (marker: string) => `sh -c 'sleep ${marker} & wait' & sleep ${marker} & echo started > ready; wait`;

    it('Stop kills the whole tree inside the sandbox, a sleeping grandchild included', async () => {
      const marker = `40.${process.pid}1`;
      const abort = new AbortController();
      const running = run(treeCommand(marker), { signal: abort.signal });
      await waitForFile(path.join(root, 'ready'), root);
      expect(pidsWith(marker).length).toBeGreaterThanOrEqual(2);
      abort.abort();
      const result = await running;
      expect(result.aborted).toBe(true);
      expect(await gone(marker)).toBe(true);
    });

    it('a timeout kills the tree too', async () => {
      const marker = `40.${process.pid}2`;
      const result = await run(treeCommand(marker), { timeoutMs: 1_500 });
      expect(result.timedOut).toBe(true);
      expect(await gone(marker)).toBe(true);
    });

    it('background jobs do not outlive the command', async () => {
      const marker = `40.${process.pid}3`;
      const result = await run(`sleep ${marker} > /dev/null 2>&1 & echo left`);
      expect(result.exitCode).toBe(0);
      expect(await gone(marker)).toBe(true);
    });
  });
});
