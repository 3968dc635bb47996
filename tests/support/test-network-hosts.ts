/**
 * Two network namespaces a test makes itself (never the machine's real addresses): "the host", whose
 * own address 198.51.100.7 (and 2001:db8::7) sits on a dummy interface, and "a LAN machine" at
 * 10.77.0.2 (plus the public-looking 203.0.113.5) behind a veth pair. Listeners run inside them; a
 * sandbox's launches are run inside "the host", so slirp4netns connects from there.
 * Each namespace is held by a process of its own and entered through /proc/PID/ns/net, not named
 * with `ip netns add`: slirp4netns' own sandbox, as root, detaches the bind mounts under
 * /run/netns on the host (measured), which would pull a named namespace away mid-test.
 * Needs root (a new network namespace); the string returned says why not.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { CommandSandbox } from '../../src/core/safety/command-sandbox.js';
import { findProgram } from '../../src/core/safety/sandbox-network.js';

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const IP = findProgram('ip', SYSTEM_PATH) ?? 'ip';
const NSENTER = findProgram('nsenter', SYSTEM_PATH) ?? 'nsenter';
const UNSHARE = findProgram('unshare', SYSTEM_PATH) ?? 'unshare';

export const HOST_ADDRESS = '198.51.100.7';
export const HOST_ADDRESS6 = '2001:db8::7';
export const LAN_ADDRESS = '10.77.0.2';
export const PUBLIC_ADDRESS = '203.0.113.5';

export interface TestNetworkHosts {
  /** Starts a TCP listener on `bind` (e.g. 0.0.0.0, ::) in that namespace; resolves to its port. */
  listen(where: 'host' | 'lan', bind: string, answer: string): Promise<number>;
  /** The sandbox, its every launch run inside "the host" namespace. */
  insideHost(sandbox: CommandSandbox): CommandSandbox;
  cleanup(): void;
}

const LISTENER = `const [bind, answer] = process.argv.slice(1);
const server = require('net').createServer((socket) => socket.end(answer + '\\n'));
server.listen(0, bind, () => console.log(server.address().port));`;

/** The first line a child prints. */
async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => [''])])) as [string];
  return line;
}

/** Makes both namespaces, or says why it cannot. */
export async function createTestNetworkHosts(): Promise<TestNetworkHosts | string> {
  const children: ChildProcess[] = [];
  const cleanup = () => {
    for (const child of children) child.kill('SIGKILL');
  };
  const holder = async (): Promise<string> => {
    const child = spawn(UNSHARE, ['--net', '/bin/sh', '-c', 'echo ready; exec sleep 3600'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    if ((await firstLine(child)) !== 'ready') throw new Error('unshare --net did not start (needs root)');
    return `--net=/proc/${child.pid}/ns/net`;
  };
  try {
    const host = await holder();
    const lan = await holder();
    const lanPid = children[1]!.pid!;
    const ipIn = (namespace: string, ...args: string[]) => execFileSync(NSENTER, [namespace, IP, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    ipIn(host, 'link', 'set', 'lo', 'up');
    ipIn(lan, 'link', 'set', 'lo', 'up');
    dummyInterface((...args) => ipIn(host, ...args));
    ipIn(host, 'addr', 'add', `${HOST_ADDRESS}/32`, 'dev', 'tsuka0');
    ipIn(host, 'addr', 'add', `${HOST_ADDRESS6}/128`, 'dev', 'tsuka0', 'nodad');
    ipIn(host, 'link', 'set', 'tsuka0', 'up');
    ipIn(host, 'link', 'add', 'tohost', 'type', 'veth', 'peer', 'name', 'tolan', 'netns', String(lanPid));
    ipIn(host, 'addr', 'add', '10.77.0.1/24', 'dev', 'tohost');
    ipIn(host, 'link', 'set', 'tohost', 'up');
    ipIn(lan, 'addr', 'add', `${LAN_ADDRESS}/24`, 'dev', 'tolan');
    ipIn(lan, 'addr', 'add', `${PUBLIC_ADDRESS}/32`, 'dev', 'tolan');
    ipIn(lan, 'link', 'set', 'tolan', 'up');
    ipIn(host, 'route', 'add', `${PUBLIC_ADDRESS}/32`, 'via', LAN_ADDRESS);
    return {
      async listen(where, bind, answer) {
        const child = spawn(NSENTER, [where === 'host' ? host : lan, process.execPath, '-e', LISTENER, bind, answer], { stdio: ['ignore', 'pipe', 'inherit'] });
        children.push(child);
        return Number(await firstLine(child));
      },
      insideHost(sandbox) {
        return {
          ...sandbox,
          launch(request) {
            const launch = sandbox.launch(request);
            return { ...launch, file: NSENTER, args: [host, launch.file, ...launch.args] };
          },
        };
      },
      cleanup,
    };
  } catch (error) {
    cleanup();
    return `cannot make network namespaces here (${String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim()}); needs root`;
  }
}

/** A dummy interface, or where this kernel has no dummy driver, a bridge without ports (it holds addresses the same way). */
function dummyInterface(ip: (...args: string[]) => void): void {
  try {
    ip('link', 'add', 'tsuka0', 'type', 'dummy');
  } catch {
    ip('link', 'add', 'tsuka0', 'type', 'bridge');
  }
}
