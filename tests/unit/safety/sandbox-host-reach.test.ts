/**
 * Issue 41, written as the attack: services bound to `0.0.0.0` or `[::]` on the host (a model
 * server, Redis, the bot's own port) answer a sandboxed command through the host's own address, and
 * the LAN's private ranges are open. Probed from approved commands under bubblewrap + slirp4netns,
 * against a "host" and a "LAN machine" in network namespaces this test makes itself; the sandbox is
 * chosen as at start, from the settings (`readSandboxConfig` + `selectCommandSandbox`).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSandboxAllow } from '../../../src/config/sandbox-allow-config.js';
import { readSandboxConfig } from '../../../src/config/sandbox-config.js';
import { createBubblewrapSandbox } from '../../../src/core/safety/bubblewrap-sandbox.js';
import type { CommandSandbox } from '../../../src/core/safety/command-sandbox.js';
import { runCommand } from '../../../src/core/safety/process-runner.js';
import { findProgram } from '../../../src/core/safety/sandbox-network.js';
import { probeSandbox, selectCommandSandbox } from '../../../src/core/safety/select-sandbox.js';
import { executeCommandTool } from '../../../src/core/tools/impl/execute-command.js';
import { createTestNetworkHosts, HOST_ADDRESS, HOST_ADDRESS6, LAN_ADDRESS, PUBLIC_ADDRESS, type TestNetworkHosts } from '../../support/test-network-hosts.js';
import { createTestToolContext, type TestToolContext } from '../tools/tool-test-context.js';

const noBubblewrap = await probeSandbox(createBubblewrapSandbox({ network: 'none', hiddenPaths: [] }));
const noSlirp = findProgram('slirp4netns', '/usr/local/bin:/usr/bin:/bin') === undefined ? 'slirp4netns is not installed' : undefined;
const hostsOrReason = (noBubblewrap ?? noSlirp) ? undefined : await createTestNetworkHosts();
const unavailable = noBubblewrap ?? noSlirp ?? (typeof hostsOrReason === 'string' ? hostsOrReason : undefined);
const PROBE = `const [host, port] = process.argv.slice(2);
const socket = require('net').connect(Number(port), host);
socket.setTimeout(5000, () => { console.log('error TIMEOUT'); socket.destroy(); });
socket.on('data', (data) => process.stdout.write('got ' + data)).on('error', (error) => console.log('error ' + error.code));`;

describe.skipIf(unavailable !== undefined)(`the host's own addresses and the LAN${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  const hosts = hostsOrReason as TestNetworkHosts;
  let tools: TestToolContext;
  let sandbox: CommandSandbox;
  const ports = { any: 0, dualStack: 0, model: 0, lanAllowed: 0, lanOther: 0 };

  beforeAll(async () => {
    tools = await createTestToolContext();
    await writeFile(path.join(tools.root, 'probe.cjs'), PROBE);
    ports.any = await hosts.listen('host', '0.0.0.0', 'redis on 0.0.0.0');
    ports.dualStack = await hosts.listen('host', '::', 'postgres on [::]');
    ports.model = await hosts.listen('host', '0.0.0.0', 'the model server');
    ports.lanAllowed = await hosts.listen('lan', '0.0.0.0', 'the team database');
    ports.lanOther = await hosts.listen('lan', '0.0.0.0', 'another LAN service');
    const problems: string[] = [];
    const config = readSandboxConfig({
      setting: (name) =>
        ({
          TSUKA_SANDBOX: 'bubblewrap',
          TSUKA_SANDBOX_NETWORK: 'user',
          TSUKA_SANDBOX_ALLOW: `db.lan.test:${ports.lanAllowed}, ${HOST_ADDRESS}:${ports.model}`,
        })[name],
      problems,
      hiddenPaths: [],
    });
    expect(problems).toEqual([]);
    const chosen = await selectCommandSandbox({ ...config, lookupHost: async (host) => (host === 'db.lan.test' ? [LAN_ADDRESS] : [host]) });
    sandbox = hosts.insideHost(chosen);
    tools.context.sandbox = sandbox;
  });
  afterAll(async () => {
    hosts.cleanup();
    await tools?.cleanup();
  });

  const probe = (host: string, port: number, before = '') =>
    runCommand({ command: `${before}node probe.cjs ${host} ${port}`, cwd: tools.root, sandbox, env: tools.context.childEnv, timeoutMs: 20_000 });

  it("refuses a listener on 0.0.0.0 through the host's own address (an approved execute_command)", async () => {
    expect(sandbox.network).toBe('user');
    const result = await executeCommandTool.execute({ command: `node probe.cjs ${HOST_ADDRESS} ${ports.any}`, timeout_ms: 20_000 }, tools.context);
    expect(result.output).not.toContain('redis on 0.0.0.0');
    expect(result.output).toMatch(/error EACCES/);
  });

  it('refuses a listener on [::] through the IPv4 and the IPv6 address', async () => {
    const v4 = await probe(HOST_ADDRESS, ports.dualStack);
    expect(v4.output).not.toContain('postgres');
    expect(v4.output).toMatch(/^error E/);
    const v6 = await probe(HOST_ADDRESS6, ports.dualStack);
    expect(v6.output).not.toContain('postgres');
    expect(v6.output).toMatch(/^error E/);
  });

  it('refuses a LAN machine in a private range, but reaches an allow-listed host:port — that port only', async () => {
    const other = await probe(LAN_ADDRESS, ports.lanOther);
    expect(other.output).not.toContain('another LAN service');
    expect(other.output).toMatch(/error EACCES/);
    const allowed = await probe(LAN_ADDRESS, ports.lanAllowed);
    expect(allowed.output).toContain('got the team database');
  });

  it("reaches an allow-listed ip:port on the host's own address, and nothing else there", async () => {
    expect((await probe(HOST_ADDRESS, ports.model)).output).toContain('got the model server');
    expect((await probe(HOST_ADDRESS, ports.any)).output).toMatch(/error EACCES/);
  });

  it('still reaches an address outside the refused ranges (the internet stays open)', async () => {
    // PUBLIC_ADDRESS lives on the test's LAN machine: not private, not the host's own.
    expect((await probe(PUBLIC_ADDRESS, ports.lanOther)).output).toContain('got another LAN service');
  });

  it('a command cannot take the routes and rules away', async () => {
    const undo = 'ip route flush table main; ip rule flush; ip route del prohibit 10.0.0.0/8; unshare -Ur ip route del prohibit 10.0.0.0/8; ';
    const result = await probe(LAN_ADDRESS, ports.lanOther, undo);
    expect(result.output).toMatch(/Operation not permitted/);
    expect(result.output).not.toContain('another LAN service');
    expect(result.output).toMatch(/error EACCES/);
  });

  it("says what it refuses and allows (doctor's lines)", () => {
    const details = (sandbox.details ?? []).join('\n');
    expect(details).toMatch(/network refuses: the host's own addresses[^\n]*10\.0\.0\.0\/8[^\n]*169\.254\.0\.0\/16[^\n]*fc00::\/7/);
    expect(details).toContain(`db.lan.test:${ports.lanAllowed} → ${LAN_ADDRESS}, TCP and UDP port ${ports.lanAllowed} only`);
    expect(details).toContain(`${HOST_ADDRESS}:${ports.model} → ${HOST_ADDRESS}, TCP and UDP port ${ports.model} only`);
  });
});

describe('TSUKA_SANDBOX_ALLOW', () => {
  it('reads host, host:port and ip:port entries', () => {
    const problems: string[] = [];
    expect(readSandboxAllow(' git.example.com, db.internal:5432,10.1.2.3:6379,git.example.com ', problems)).toEqual([
      { host: 'git.example.com' },
      { host: 'db.internal', port: 5432 },
      { host: '10.1.2.3', port: 6379 },
    ]);
    expect(problems).toEqual([]);
  });

  it.each([
    ['db.internal:99999', /port 99999 is outside/],
    ['db.internal:pg', /"pg" is not a port number/],
    ['10.0.0.0/8', /address ranges are not supported/],
    ['[fd00::5]:5432', /IPv6 is not routed/],
    ['127.0.0.1:6379', /127\.0\.0\.1 is its own/],
    ['localhost:6379', /localhost is its own/],
    ['10.0.2.2:80', /the sandbox's own user-mode network/],
    ['bad host!', /not a host name or IPv4 address/],
  ])('refuses %s as a configuration error', (entry, why) => {
    const problems: string[] = [];
    expect(readSandboxAllow(entry, problems)).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^TSUKA_SANDBOX_ALLOW entry "${entry.replace(/[[\]().*+?^$|\\/]/g, '\\$&')}" is not valid: `));
    expect(problems[0]).toMatch(why);
  });
});

describe.skipIf(noBubblewrap !== undefined)(`without iproute2${noBubblewrap ? ` (skipped: bwrap does not work here: ${noBubblewrap})` : ''}`, () => {
  it('the user-mode network is not offered (it could not refuse anything), and the start says why', async () => {
    const chosen = await selectCommandSandbox({ mode: 'bubblewrap', network: 'auto', hiddenPaths: [], ipPath: '' });
    expect(chosen.network).toBe('none');
    expect(chosen.summary).toMatch(/ip \(iproute2\) is not installed/);
    await expect(selectCommandSandbox({ mode: 'bubblewrap', network: 'user', hiddenPaths: [], ipPath: '' })).rejects.toThrow(
      /install slirp4netns and iproute2/,
    );
  });
});
