/**
 * Issue 29, written as the attacks: a sandboxed command calling a service on the host's loopback
 * (the bot's HTTP port, Redis, the model server), reading host secrets (/etc/shadow, a path named
 * in TSUKA_SANDBOX_HIDE), forking without end, filling /tmp and printing without end. The sandbox
 * is chosen as at start, from the settings (`readSandboxConfig` + `selectCommandSandbox`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSandboxConfig } from '../../../src/config/sandbox-config.js';
import { createBubblewrapSandbox } from '../../../src/core/safety/bubblewrap-sandbox.js';
import type { CommandSandbox } from '../../../src/core/safety/command-sandbox.js';
import { runCommand } from '../../../src/core/safety/process-runner.js';
import { findPidsCgroupParent } from '../../../src/core/safety/sandbox-limits.js';
import { probeSandbox, selectCommandSandbox } from '../../../src/core/safety/select-sandbox.js';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import { createTestToolContext, type TestToolContext } from '../tools/tool-test-context.js';

const unavailable = await probeSandbox(createBubblewrapSandbox({ network: 'none', hiddenPaths: [] }));
// As root, RLIMIT_NPROC binds nothing: the process limit needs a pids cgroup the bot can create.
const noCgroups = findPidsCgroupParent() === undefined;

describe.skipIf(unavailable !== undefined)(`sandbox escapes${unavailable ? ` (skipped: bwrap does not work here: ${unavailable})` : ''}`, () => {
  let tools: TestToolContext;
  let sandbox: CommandSandbox;
  let server: Server;
  let port: number;
  let secretFile: string;

  beforeAll(async () => {
    tools = await createTestToolContext();
    secretFile = path.join(await realpath(tools.root), 'deploy', 'app.env');
    await mkdir(path.dirname(secretFile));
    await writeFile(secretFile, 'DEPLOY_API_TOKEN=hidden-from-commands-123');
    const problems: string[] = [];
    const config = readSandboxConfig({
      setting: (name) =>
        ({
          TSUKA_SANDBOX: 'bubblewrap',
          TSUKA_SANDBOX_HIDE: secretFile,
          TSUKA_SANDBOX_MAX_PROCESSES: '32',
          TSUKA_SANDBOX_TMPFS_MB: '4',
          TSUKA_SANDBOX_MAX_OUTPUT_MB: '1',
        })[name],
      problems,
      hiddenPaths: [],
    });
    expect(problems).toEqual([]);
    sandbox = await selectCommandSandbox(config);
    tools.context.sandbox = sandbox;
    server = createServer((socket) => socket.end('the bot answers\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await tools.cleanup();
  });

  const run = (command: string) => runCommand({ command, cwd: tools.root, sandbox, env: tools.context.childEnv, timeoutMs: 15_000 });

  it("cannot reach a service on the host's 127.0.0.1 (the bot's port, Redis, a model server)", async () => {
    const result = await run(
      `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write('got ' + d)).on('error', (e) => { console.log('error ' + e.code); process.exit(1); })"`,
    );
    expect(result.output).not.toContain('the bot answers');
    expect(result.output).toMatch(/error ECONNREFUSED/);
    expect(sandbox.network === 'user' || sandbox.network === 'none').toBe(true);
    // Nor through the user-mode network's gateway, which would otherwise be the host's loopback.
    if (sandbox.network === 'user') {
      const gateway = await run(
        `node -e "require('net').connect(${port}, '10.0.2.2').on('data', (d) => console.log('got ' + d)).on('error', (e) => console.log('error ' + e.code))"`,
      );
      expect(gateway.output).toMatch(/^error /);
    }
  });

  it('a role that opts in to the host network reaches it; one that turns it off has loopback only', async () => {
    const probe = `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write('got ' + d)).on('error', (e) => console.log('error ' + e.code))"`;
    const host = await runCommand({ command: probe, cwd: tools.root, sandbox, env: tools.context.childEnv, timeoutMs: 15_000, network: 'host' });
    expect(host.output).toContain('got the bot answers');
    const off = await runCommand({
      command: 'tail -n +3 /proc/net/dev | wc -l',
      cwd: tools.root,
      sandbox,
      env: tools.context.childEnv,
      timeoutMs: 15_000,
      network: false,
    });
    expect(off.output.trim()).toBe('1');
  });

  it('cannot read /etc/shadow or a file named in TSUKA_SANDBOX_HIDE', async () => {
    const result = await run(`cat /etc/shadow; cat '${secretFile}'; echo done`);
    expect(result.output).toContain('done');
    expect(result.output).not.toContain('hidden-from-commands-123');
    if (existsSync('/etc/shadow')) expect(result.output).not.toMatch(/^root:/m);
    // The file is still there for the bot.
    expect(readFileSync(secretFile, 'utf8')).toContain('hidden-from-commands-123');
  });

  it('filling /tmp beyond the tmpfs size fails', async () => {
    const result = await run('dd if=/dev/zero of=/tmp/fill bs=1M count=8; echo "dd exit $?"');
    expect(result.output).toMatch(/No space left on device/);
    expect(result.output).toMatch(/dd exit 1/);
  });

  it('endless output is stopped at the output limit and says so', async () => {
    const result = await executeCommandTool.execute({ command: 'yes tsuka', timeout_ms: 15_000 }, tools.context);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^stopped: the command's output reached the sandbox's output limit \(1 MB\)/);
    expect(result.output.length).toBeLessThan(300_000);
  });

  it.skipIf(noCgroups)(
    `a fork bomb is stopped at the process limit and says so${noCgroups ? ' (skipped: no pids cgroup can be created here)' : ''}`,
    async () => {
      const result = await executeCommandTool.execute({ command: 'for i in $(seq 100); do sleep 30 & done; wait', timeout_ms: 15_000 }, tools.context);
      expect(result.isError).toBe(true);
      expect(result.output).toMatch(/^stopped: the command reached the sandbox's process limit \(32\)/);
    },
  );
});
