/**
 * The Docker set-up read against what the default command sandbox does (issue 35): the image must
 * hold every program the sandbox runs, and the compose files must allow what it asks of the kernel.
 * What the sandbox needs is taken from the sandbox itself (the command line it launches), not
 * restated here, so a new program or mount in the sandbox fails this test until the image and the
 * compose files follow. Static: no Docker engine is needed (docs/docker.md says what was run on one).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { BWRAP_PROGRAM, createBubblewrapSandbox, UNSHARE_PROGRAM } from '../../../src/core/safety/bubblewrap-sandbox.js';
import { SANDBOX_WRAPPER_SCRIPT } from '../../../src/core/safety/sandbox-network.js';
import { NETNS_HOST_SCRIPT } from '../../../src/core/safety/sandbox-reach.js';
import { PRLIMIT_PROGRAM, SLIRP4NETNS_PROGRAM } from '../../../src/core/safety/select-sandbox.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const COMPOSE_FILES = ['docker-compose.yml', 'docker-compose.replicas.yml'];

/** Which Debian package gives each program the sandbox runs (bookworm, the image's base). */
const DEBIAN_PACKAGE: Record<string, string> = {
  bwrap: 'bubblewrap',
  slirp4netns: 'slirp4netns',
  unshare: 'util-linux',
  ip: 'iproute2',
  prlimit: 'util-linux',
  sh: 'dash',
  mktemp: 'coreutils',
  mkfifo: 'coreutils',
  rm: 'coreutils',
  dd: 'coreutils',
  head: 'coreutils',
};
/** Essential in Debian: in every image built on it, whatever the Dockerfile installs. */
const ESSENTIAL = new Set(['dash', 'coreutils']);

/** The packages the runtime stage installs with apt-get. */
function runtimePackages(): Set<string> {
  const dockerfile = read('Dockerfile').replace(/\\\n/g, ' ');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const installs = [...runtime.matchAll(/apt-get install ([^&\n]*)/g)].map((match) => match[1] ?? '');
  return new Set(installs.flatMap((line) => line.split(/\s+/).filter((word) => word !== '' && !word.startsWith('-'))));
}

/** The `tsuka` service's block of a compose file (two-space services, four-space keys). */
function tsukaService(file: string): string {
  const compose = read(file);
  const start = compose.indexOf('\n  tsuka:\n');
  expect(start, `${file} has a tsuka service`).toBeGreaterThan(-1);
  const rest = compose.slice(start + 1);
  const end = rest.slice(1).search(/\n( {2}\S|\S)/);
  return end === -1 ? rest : rest.slice(0, end + 1);
}

/** A list under a four-space key of the service (`security_opt`, `devices`). */
function serviceList(service: string, key: string): string[] {
  const block = new RegExp(`^ {4}${key}:\\n((?: {6}- .*\\n|\\s*#.*\\n)+)`, 'm').exec(`${service}\n`)?.[1] ?? '';
  return [...block.matchAll(/^ {6}- (.*)$/gm)].map((match) => (match[1] ?? '').trim().replace(/^"(.*)"$/, '$1'));
}

/** The service's `environment:` map. */
function serviceEnvironment(service: string): Record<string, string> {
  const block = /^ {4}environment:\n((?: {6}\S.*\n|\s*#.*\n)+)/m.exec(`${service}\n`)?.[1] ?? '';
  const entries = [...block.matchAll(/^ {6}([A-Z0-9_]+): (.*)$/gm)].map((match) => [match[1] ?? '', (match[2] ?? '').replace(/^"(.*)"$/, '$1')] as const);
  return Object.fromEntries(entries);
}

let root: string;
let launchArgs: string[];
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-docker-static-'));
  // The default the compose files insist on: bubblewrap with the user-mode network, limits on.
  const sandbox = createBubblewrapSandbox({ network: 'user', slirpPath: SLIRP4NETNS_PROGRAM, prlimitPath: PRLIMIT_PROGRAM, hiddenPaths: [] });
  const launch = sandbox.launch({ command: 'true', root, cwd: root, env: {} });
  launchArgs = [launch.file, ...launch.args];
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the image holds every program the default sandbox runs', () => {
  it('bwrap, slirp4netns, unshare and prlimit, and what the network wrapper script calls', () => {
    const programs = new Set<string>(['sh']);
    for (const program of [BWRAP_PROGRAM, UNSHARE_PROGRAM, SLIRP4NETNS_PROGRAM, PRLIMIT_PROGRAM]) {
      // Each one is really on the command line the sandbox launches.
      expect(launchArgs, program).toContain(program);
      programs.add(path.basename(program));
    }
    expect(path.basename(launchArgs[0] ?? '')).toBe('sh');
    // ip (iproute2) reads the host's addresses and sets the namespace's refusing routes (sandbox-reach.ts).
    expect(launchArgs.some((arg) => path.basename(arg) === 'ip')).toBe(true);
    programs.add('ip');
    for (const word of ['mktemp', 'mkfifo', 'rm', 'dd', 'head']) {
      expect(SANDBOX_WRAPPER_SCRIPT, word).toMatch(new RegExp(`(^|[\\s(;|&'])${word}\\s`, 'm'));
      programs.add(word);
    }
    const installed = runtimePackages();
    for (const program of programs) {
      const debianPackage = DEBIAN_PACKAGE[program];
      expect(debianPackage, `the Debian package of ${program}`).toBeDefined();
      expect(ESSENTIAL.has(debianPackage!) || installed.has(debianPackage!), `${program} (${debianPackage}) is installed in the runtime stage`).toBe(true);
    }
  });
});

describe.each(COMPOSE_FILES)('%s lets the default sandbox work', (file) => {
  const service = tsukaService(file);
  const options = serviceList(service, 'security_opt');

  it('user namespaces: seccomp and AppArmor do not forbid them', () => {
    expect(launchArgs).toContain('--unshare-all');
    // The user-mode network's namespace is made by the host-side script the sandbox launches.
    expect(launchArgs).toContain(NETNS_HOST_SCRIPT);
    expect(NETNS_HOST_SCRIPT).toContain('--map-root-user');
    expect(options.some((option) => option === 'seccomp=unconfined' || /^seccomp=\S+\.json$/.test(option))).toBe(true);
    expect(options).toContain('apparmor=unconfined');
  });

  it("a fresh /proc: Docker's masked paths are lifted (systempaths=unconfined, spelled as Compose matches it)", () => {
    const proc = launchArgs.indexOf('--proc');
    expect(proc).toBeGreaterThan(-1);
    expect(launchArgs[proc + 1]).toBe('/proc');
    expect(options).toContain('systempaths=unconfined');
  });

  it('the user-mode network: /dev/net/tun for slirp4netns, and a start that fails rather than goes without', () => {
    expect(launchArgs).toContain(SLIRP4NETNS_PROGRAM);
    expect(serviceList(service, 'devices').map((device) => device.split(':')[0])).toContain('/dev/net/tun');
    const environment = serviceEnvironment(service);
    expect(environment.TSUKA_SANDBOX).toBe('bubblewrap');
    expect(environment.TSUKA_SANDBOX_NETWORK).toBe('user');
  });

  it('nothing wider: not privileged, no added capability, no host PID or network', () => {
    expect(service).not.toMatch(/privileged:\s*true|cap_add|pid:\s*host|network_mode:\s*host/);
  });

  it("its environment is one the bot's configuration accepts, with the sandbox it names", async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'tsuka-compose-env-'));
    try {
      const environment = Object.fromEntries(
        Object.entries(serviceEnvironment(service)).map(([name, value]) => [name, value.replace(/\$\{REDIS_PASSWORD[^}]*\}/g, 'p@ss/w#rd:%')]),
      );
      const paths = { TSUKA_DATA_DIR: path.join(directory, 'data'), TSUKA_WORKSPACE: path.join(directory, 'workspace') };
      let problems: string[] = [];
      try {
        const config = loadConfig({ environment: { ...environment, ...paths }, workingDirectory: directory, rootDirectory: ROOT });
        expect(config.sandbox.mode).toBe('bubblewrap');
        expect(config.sandbox.network).toBe('user');
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems = error.problems;
      }
      expect(problems).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('docker-compose.replicas.yml and the Redis password', () => {
  it('never splices REDIS_PASSWORD into a URL: it goes to Redis as an argument and to TSUKA on its own', () => {
    const compose = read('docker-compose.replicas.yml');
    expect(compose).not.toMatch(/:\/\/[^\s"]*\$\{?REDIS_PASSWORD/);
    const environment = serviceEnvironment(tsukaService('docker-compose.replicas.yml'));
    expect(environment.TSUKA_STORE_URL).toBe('redis://redis:6379');
    expect(environment.TSUKA_REDIS_PASSWORD).toMatch(/^\$\{REDIS_PASSWORD:\?/);
  });
});
