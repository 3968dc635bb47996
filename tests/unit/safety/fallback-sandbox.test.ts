/**
 * The declared fallback and the choice between it and bubblewrap: configuration, the start-time
 * probe, secrets leaving the bot's environment, and commands as another user.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { readSandboxConfig } from '../../../src/config/sandbox-config.js';
import { removeSecretsFromEnvironment } from '../../../src/config/secret-environment.js';
import { TsukaError } from '../../../src/core/errors.js';
import { createFallbackSandbox } from '../../../src/core/safety/fallback-sandbox.js';
import { runCommand } from '../../../src/core/safety/process-runner.js';
import { selectCommandSandbox } from '../../../src/core/safety/select-sandbox.js';
import { DEFAULT_SANDBOX_LIMITS } from '../../../src/core/safety/sandbox-limits.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tsuka-fallback-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n';

function sandboxConfig(values: Record<string, string>) {
  const problems: string[] = [];
  const config = readSandboxConfig({ setting: (envName) => values[envName], problems, hiddenPaths: ['/srv/data'], passwd: () => PASSWD });
  return { config, problems };
}

describe('sandbox configuration', () => {
  it('defaults to auto with the network on auto, and resolves a user by name or number', () => {
    expect(sandboxConfig({}).config).toEqual({ mode: 'auto', network: 'auto', allow: [], limits: DEFAULT_SANDBOX_LIMITS, hiddenPaths: ['/srv/data'] });
    expect(sandboxConfig({ TSUKA_SANDBOX: 'none', TSUKA_SANDBOX_NETWORK: '0', TSUKA_SANDBOX_USER: 'nobody' }).config).toEqual({
      mode: 'none',
      network: 'none',
      allow: [],
      limits: DEFAULT_SANDBOX_LIMITS,
      user: { name: 'nobody', uid: 65534, gid: 65534 },
      hiddenPaths: ['/srv/data'],
    });
    expect(sandboxConfig({ TSUKA_SANDBOX_USER: '1234:99' }).config.user).toEqual({ name: '1234:99', uid: 1234, gid: 99 });
  });

  it('reads the network modes, TSUKA_SANDBOX_HIDE and the limits', () => {
    expect(sandboxConfig({ TSUKA_SANDBOX_NETWORK: 'host' }).config.network).toBe('host');
    expect(sandboxConfig({ TSUKA_SANDBOX_NETWORK: 'USER' }).config.network).toBe('user');
    expect(sandboxConfig({ TSUKA_SANDBOX_NETWORK: '1' }).config.network).toBe('auto');
    const { config, problems } = sandboxConfig({
      TSUKA_SANDBOX_HIDE: '/opt/secrets, /etc/app.env,,',
      TSUKA_SANDBOX_MAX_PROCESSES: '64',
      TSUKA_SANDBOX_TMPFS_MB: '16',
    });
    expect(problems).toEqual([]);
    expect(config.hiddenPaths).toEqual(['/srv/data', '/opt/secrets', '/etc/app.env']);
    expect(config.limits).toEqual({ ...DEFAULT_SANDBOX_LIMITS, maxProcesses: 64, tmpfsMb: 16 });
    expect(sandboxConfig({ TSUKA_SANDBOX_HIDE: 'relative/path', TSUKA_SANDBOX_MAX_MEMORY_MB: 'lots' }).problems).toEqual([
      expect.stringMatching(/^TSUKA_SANDBOX_HIDE holds relative paths \(relative\/path\)/),
      expect.stringMatching(/^TSUKA_SANDBOX_MAX_MEMORY_MB="lots" is not valid/),
    ]);
  });

  it('names each bad setting and how to fix it', () => {
    const { problems } = sandboxConfig({ TSUKA_SANDBOX: 'docker', TSUKA_SANDBOX_NETWORK: 'maybe', TSUKA_SANDBOX_USER: 'ghost' });
    expect(problems).toEqual([
      expect.stringMatching(/^TSUKA_SANDBOX="docker" is not valid: use auto/),
      expect.stringMatching(/^TSUKA_SANDBOX_NETWORK="maybe" is not valid/),
      expect.stringMatching(/^TSUKA_SANDBOX_USER="ghost" is not a user on this machine/),
    ]);
  });
});

describe('choosing the sandbox at start', () => {
  it('auto falls back, and says why, when bwrap cannot run; bubblewrap then refuses to start', async () => {
    const settings = { network: false, hiddenPaths: [], bwrapPath: path.join(dir, 'no-bwrap-here') };
    const fallback = await selectCommandSandbox({ ...settings, mode: 'auto' });
    expect(fallback.isolation).toBe('environment-only');
    expect(fallback.summary).toMatch(
      /^isolation: environment only — no sandbox \(bubblewrap unavailable: .*(ENOENT|not found|No such file).*TSUKA_SANDBOX_NETWORK=none cannot be enforced without bubblewrap\)/,
    );
    await expect(selectCommandSandbox({ ...settings, mode: 'bubblewrap' })).rejects.toThrow(TsukaError);
    await expect(selectCommandSandbox({ ...settings, mode: 'bubblewrap' })).rejects.toThrow(/TSUKA_SANDBOX=bubblewrap but bubblewrap does not work here/);
  });

  it('holding platform tokens, "environment only" is refused unless chosen with env-only (issue 26)', async () => {
    const settings = { network: false, hiddenPaths: [], bwrapPath: path.join(dir, 'no-bwrap-here'), holdsPlatformTokens: true };
    // A plain `docker run`: bubblewrap cannot work, and the tokens are in the bot's environment.
    await expect(selectCommandSandbox({ ...settings, mode: 'auto' })).rejects.toThrow(
      /TSUKA holds Slack\/Discord tokens, and agent commands would run with "environment only" isolation here \(bubblewrap unavailable: .*\).*set TSUKA_SANDBOX=env-only to accept that/,
    );
    await expect(selectCommandSandbox({ ...settings, mode: 'none' })).rejects.toThrow(/TSUKA_SANDBOX=env-only/);
    const accepted = await selectCommandSandbox({ ...settings, mode: 'env-only' });
    expect(accepted.isolation).toBe('environment-only');
    expect(accepted.summary).toMatch(/TSUKA_SANDBOX=env-only, chosen explicitly/);
    // Without tokens (the playground, `tsuka ask` without platforms) the fallback is as before.
    expect((await selectCommandSandbox({ ...settings, holdsPlatformTokens: false, mode: 'auto' })).isolation).toBe('environment-only');
  });

  it('none is the fallback even where bwrap works; a configured user makes it separate-user', async () => {
    const none = await selectCommandSandbox({ mode: 'none', network: true, hiddenPaths: [] });
    expect(none.isolation).toBe('environment-only');
    const asNobody = await selectCommandSandbox({ mode: 'none', network: true, hiddenPaths: [], user: { name: 'nobody', uid: 65534, gid: 65534 } });
    expect(asNobody.isolation).toBe('separate-user');
    expect(asNobody.summary).toMatch(/^isolation: separate user — .*commands run as nobody \(uid 65534\)/);
  });
});

describe('secrets out of the bot environment', () => {
  it('removes tokens and secret-shaped values, keeps the rest, and says which went', () => {
    const environment: NodeJS.ProcessEnv = {
      PATH: '/usr/bin',
      HOME: '/home/bot',
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      DISCORD_BOT_TOKEN: 'abc.def.ghi',
      TSUKA_LLM_API_KEY: 'sk-123',
      DATABASE_URL: 'postgres://app:hunter2@db/app',
      TSUKA_WORKSPACE: '/srv/work',
    };
    const removed = removeSecretsFromEnvironment(environment);
    expect(removed.sort()).toEqual(['DATABASE_URL', 'DISCORD_BOT_TOKEN', 'SLACK_BOT_TOKEN', 'TSUKA_LLM_API_KEY']);
    expect(environment).toEqual({ PATH: '/usr/bin', HOME: '/home/bot', TSUKA_WORKSPACE: '/srv/work' });
  });

  it('the CLI removes them from its environment once the configuration holds them, before any command', async () => {
    const environment: NodeJS.ProcessEnv = {
      PATH: '/usr/bin:/bin',
      HOME: dir,
      TSUKA_DATA_DIR: path.join(dir, 'data'),
      SLACK_BOT_TOKEN: 'xoxb-1-2-cli',
      SLACK_APP_TOKEN: 'xapp-1-cli',
      TSUKA_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    };
    let stderr = '';
    // `ask` without a prompt stops after the configuration is loaded: nothing else runs.
    const status = await main(['ask'], {
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      environment,
      workingDirectory: dir,
      moveSecretsOutOfEnvironment: true,
    });
    expect(status).toBe(2);
    expect(stderr).toMatch(/^Usage: tsuka ask/);
    expect(environment).toEqual({ PATH: '/usr/bin:/bin', HOME: dir, TSUKA_DATA_DIR: path.join(dir, 'data'), TSUKA_LLM_BASE_URL: 'http://127.0.0.1:9/v1' });
  });
});

const isRoot = process.getuid?.() === 0;
describe.skipIf(isRoot)(`a user the bot cannot switch to${isRoot ? ' (skipped: as root every switch works)' : ''}`, () => {
  it('stops the start instead of running commands as the bot itself', async () => {
    await expect(selectCommandSandbox({ mode: 'none', network: true, hiddenPaths: [], user: { name: 'nobody', uid: 65534, gid: 65534 } })).rejects.toThrow(
      /TSUKA_SANDBOX_USER=nobody but commands cannot run as that user/,
    );
  });
});

describe.skipIf(!isRoot)(`fallback as another user${isRoot ? '' : ' (skipped: switching users needs the tests to run as root)'}`, () => {
  it('runs the command as that user, who cannot read the bot process environ', async () => {
    const sandbox = createFallbackSandbox({ user: { name: 'nobody', uid: 65534, gid: 65534 } });
    const result = await runCommand({
      command: `id -u; cat /proc/${process.pid}/environ >/dev/null && echo READ || echo DENIED`,
      cwd: '/',
      sandbox,
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 10_000,
    });
    expect(result.output).toMatch(/^65534\n/);
    expect(result.output).toContain('DENIED');
    // The same command as the bot's own user reads it: the user switch is what protects.
    const same = await runCommand({
      command: `cat /proc/${process.pid}/environ >/dev/null && echo READ || echo DENIED`,
      cwd: '/',
      sandbox: createFallbackSandbox(),
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 10_000,
    });
    expect(same.output).toContain('READ');
  });
});
