/**
 * Commands under bubblewrap (https://github.com/containers/bubblewrap): a new user, PID, IPC, UTS,
 * cgroup and network namespace, a fresh /proc that shows only the sandbox's own processes, the
 * system folders read-only (secrets in them covered), a private /tmp, home and /dev/shm of limited
 * size, and the command's root bound read-write at its own path. Nothing else of the host exists
 * inside: not the data folder, not the bot's checkout, not the bot's home. The network is a
 * user-mode one without the host's loopback, none, or (opt-in) the host's (`sandbox-network.ts`);
 * processes, memory, file size and tmpfs are limited (`sandbox-limits.ts`).
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { CommandSandbox, SandboxLaunch, SandboxRequest } from './command-sandbox.js';
import { commandNetwork, findProgram, SANDBOX_WRAPPER_SCRIPT, type SandboxNetwork } from './sandbox-network.js';
import { describeReach, NETNS_HOST_SCRIPT, NETNS_STAGE_SCRIPT, reachRouteLines, type ResolvedAllowEntry } from './sandbox-reach.js';
import { DEFAULT_SANDBOX_LIMITS, describeLimits, type PidsCgroupParent, prlimitArguments, type SandboxLimits } from './sandbox-limits.js';

/** Host folders mirrored read-only (symlinks such as a merged-/usr `/bin` stay symlinks). */
export const SANDBOX_SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'] as const;
/** The command's home inside the sandbox: empty, private, gone when the command ends. */
export const SANDBOX_HOME = '/home/sandbox';
/**
 * Host secrets inside the mirrored folders, covered for every command (those that exist): password
 * hashes, sudo rules, TLS and SSH private keys, stored network and VPN credentials.
 */
export const SENSITIVE_SYSTEM_PATHS = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/security/opasswd',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/ssl/private',
  '/etc/letsencrypt',
  '/etc/wireguard',
  '/etc/NetworkManager/system-connections',
  '/etc/credstore',
  '/etc/credstore.encrypted',
] as const;
const MIB = 1024 * 1024;
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The programs run by default (looked up on PATH): bwrap, and unshare(1) for the user-mode network's namespace. */
export const BWRAP_PROGRAM = 'bwrap';
export const UNSHARE_PROGRAM = 'unshare';

export interface BubblewrapSandboxOptions {
  /** The bwrap program (default `bwrap`, looked up on PATH). */
  bwrapPath?: string;
  /**
   * The network commands get: `user` (internet, not the host's loopback; needs `slirpPath`),
   * `none`, or `host`. `true`/`false` are the older spelling of `host`/`none`.
   */
  network: SandboxNetwork | boolean;
  /** slirp4netns, for the `user` network. */
  slirpPath?: string;
  /** unshare(1), which makes the network namespace slirp4netns is attached to (default `unshare` on PATH). */
  unsharePath?: string;
  /** ip(8) (iproute2), which refuses the host's addresses and the private ranges in that namespace (default: found on the system PATH). */
  ipPath?: string;
  /** `TSUKA_SANDBOX_ALLOW`, resolved: what the user-mode network reaches beyond the internet. */
  allowed?: readonly ResolvedAllowEntry[];
  /** Whether a role's `"network": "host"` may give its commands the host's network (default: unless `none`). */
  allowHostNetwork?: boolean;
  /** Defaults: DEFAULT_SANDBOX_LIMITS. */
  limits?: SandboxLimits;
  /** prlimit(1), for the memory and file-size limits; without it those are not set. */
  prlimitPath?: string;
  /** Where the runner creates a pids cgroup per command; without it RLIMIT_NPROC (not for root). */
  processCgroups?: PidsCgroupParent;
  /**
   * Host folders that must never be visible: the data folder, the bot's checkout, the bot's home.
   * None is mounted; those that lie under a mirrored system folder or inside a command's root are
   * covered: a folder with an empty read-only tmpfs, a file with /dev/null. SENSITIVE_SYSTEM_PATHS
   * and the SSH host keys are added here.
   */
  hiddenPaths: string[];
  /** Why this level was chosen, for the summary (e.g. `auto: bwrap works here`). */
  reason?: string;
}

interface SystemEntry {
  path: string;
  /** Set for a symlink: its target, recreated as the same symlink. */
  link?: string;
}

function isInside(outer: string, inner: string): boolean {
  return inner !== outer && inner.startsWith(outer === '/' ? '/' : `${outer}/`);
}

/** Which system folders exist here, and which of them are symlinks (read once at start). */
function readSystemLayout(): SystemEntry[] {
  const entries: SystemEntry[] = [];
  for (const systemPath of SANDBOX_SYSTEM_PATHS) {
    try {
      const info = lstatSync(systemPath);
      if (info.isSymbolicLink()) entries.push({ path: systemPath, link: readlinkSync(systemPath) });
      else if (info.isDirectory()) entries.push({ path: systemPath });
    } catch {
      // Absent on this host (e.g. /libx32): nothing to mirror.
    }
  }
  return entries;
}

/** A resolver configuration outside the mirrored folders (systemd-resolved's stub) must follow /etc/resolv.conf in. */
function resolverTarget(mirrored: string[]): string | undefined {
  try {
    const target = realpathSync('/etc/resolv.conf');
    return mirrored.some((folder) => target === folder || isInside(folder, target)) ? undefined : target;
  } catch {
    return undefined;
  }
}

/** A hidden path and what covers it: an empty read-only tmpfs (folder) or /dev/null (anything else). */
export interface HiddenPath {
  path: string;
  file: boolean;
  /** A missing path under a read-only system folder cannot be covered (and needs no cover). */
  exists: boolean;
}

/** The SSH host private keys (`/etc/ssh/ssh_host_*_key`) present here. */
function sshHostKeys(): string[] {
  try {
    return readdirSync('/etc/ssh')
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => `/etc/ssh/${name}`);
  } catch {
    return [];
  }
}

/** Existing paths with their kind; a missing one inside a command root is covered as a folder (as before). */
function classifyHidden(paths: string[]): HiddenPath[] {
  return paths.map((hiddenPath) => {
    try {
      return { path: hiddenPath, file: !lstatSync(realpathSync(hiddenPath)).isDirectory(), exists: true };
    } catch {
      return { path: hiddenPath, file: false, exists: false };
    }
  });
}

export interface BubblewrapLayout {
  system: SystemEntry[];
  hidden: HiddenPath[];
  network: SandboxNetwork;
  tmpfsMb: number;
  resolver?: string;
  uid?: number;
  gid?: number;
}

function cover(args: string[], hidden: HiddenPath): void {
  if (hidden.file) args.push('--ro-bind', '/dev/null', hidden.path);
  else args.push('--size', String(MIB), '--tmpfs', hidden.path, '--remount-ro', hidden.path);
}

/** The bwrap arguments for one request (`network` already decided for it); exported for tests. */
export function bubblewrapArguments(request: SandboxRequest, layout: BubblewrapLayout): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  // `user`: bwrap runs in the namespace the wrapper made and attached slirp4netns to (keeping the bot's uid inside).
  if (layout.network !== 'none') args.push('--share-net');
  if (layout.network === 'user' && layout.uid !== undefined) args.push('--uid', String(layout.uid), '--gid', String(layout.gid ?? layout.uid));
  const mirrored: string[] = [];
  for (const entry of layout.system) {
    if (entry.link !== undefined) args.push('--symlink', entry.link, entry.path);
    else {
      args.push('--ro-bind', entry.path, entry.path);
      mirrored.push(entry.path);
    }
  }
  if (layout.resolver) args.push('--ro-bind-try', layout.resolver, layout.resolver);
  if (layout.network === 'user') args.push('--ro-bind-data', '5', layout.resolver ?? '/etc/resolv.conf');
  for (const hidden of layout.hidden) {
    if (hidden.exists && mirrored.some((folder) => isInside(folder, hidden.path))) cover(args, hidden);
  }
  const size = String(layout.tmpfsMb * MIB);
  args.push('--proc', '/proc', '--dev', '/dev', '--size', size, '--tmpfs', '/dev/shm', '--size', size, '--tmpfs', '/tmp');
  args.push('--size', size, '--tmpfs', SANDBOX_HOME);
  args.push('--bind', request.root, request.root);
  for (const hidden of layout.hidden) {
    if (isInside(request.root, hidden.path)) cover(args, hidden);
  }
  // MCP servers only (issue 26): their own files read-only, their home read-write; hidden paths inside stay hidden.
  for (const bind of request.binds ?? []) {
    const target = bind.target ?? bind.source;
    args.push(bind.writable ? '--bind' : '--ro-bind', bind.source, target);
    for (const hidden of layout.hidden) if (hidden.exists && isInside(target, hidden.path)) cover(args, hidden);
  }
  // bwrap's own root and /dev are unlimited tmpfs: nothing may be written there.
  args.push('--remount-ro', '/dev', '--remount-ro', '/');
  args.push('--chdir', request.cwd, '--', '/bin/sh', '-c', request.command);
  return args;
}

function networkOf(option: SandboxNetwork | boolean): SandboxNetwork {
  if (option === true) return 'host';
  if (option === false) return 'none';
  return option;
}

const NETWORK_TEXT: Record<SandboxNetwork, string> = {
  user: "network: user-mode (slirp4netns), host loopback unreachable, nor the host's own addresses or the private ranges",
  none: 'network: none (loopback only)',
  host: "network: the host's (its loopback services included)",
};

export function createBubblewrapSandbox(options: BubblewrapSandboxOptions): CommandSandbox {
  const system = readSystemLayout();
  const wanted = [...options.hiddenPaths, ...SENSITIVE_SYSTEM_PATHS, ...sshHostKeys()];
  const hidden = classifyHidden(
    [...new Set(wanted.map((hiddenPath) => path.resolve(hiddenPath)))].filter(
      // Never cover `/` or a whole system folder: that would hide the system itself.
      (hiddenPath) => hiddenPath !== '/' && !system.some((entry) => entry.path === hiddenPath || isInside(hiddenPath, entry.path)),
    ),
  );
  const resolver = resolverTarget(system.filter((entry) => entry.link === undefined).map((entry) => entry.path));
  const bwrap = options.bwrapPath ?? BWRAP_PROGRAM;
  const network = networkOf(options.network);
  if (network === 'user' && !options.slirpPath) throw new Error('the user-mode network needs slirp4netns (slirpPath)');
  const ipPath = options.ipPath ?? findProgram('ip', SYSTEM_PATH);
  if (network === 'user' && !ipPath) throw new Error("the user-mode network needs ip (iproute2) to refuse the host's addresses and the private ranges");
  const allowed = options.allowed ?? [];
  const routes = reachRouteLines(allowed);
  const allowHost = options.allowHostNetwork ?? network !== 'none';
  const limits = options.limits ?? DEFAULT_SANDBOX_LIMITS;
  const nproc = !options.processCgroups && process.getuid?.() !== 0;
  const rlimits = options.prlimitPath ? [options.prlimitPath, ...prlimitArguments(limits, nproc), '--'] : [];
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  const owner = uid === undefined ? {} : { uid, gid };
  const roleHost = network !== 'host' && allowHost ? '; a role with "network": "host" gets the host\'s' : '';
  return {
    isolation: 'bubblewrap',
    network,
    limits,
    ...(options.processCgroups ? { processCgroups: options.processCgroups } : {}),
    summary: `isolation: bubblewrap — commands see a read-only system and their own workspace only, in their own PID namespace and /proc${options.reason ? ` (${options.reason})` : ''}`,
    details: [
      `${NETWORK_TEXT[network]}${roleHost}`,
      ...(network === 'user' ? describeReach(allowed) : []),
      describeLimits(limits, options.processCgroups ? 'cgroup' : nproc ? 'rlimit' : 'none', rlimits.length > 0),
    ],
    launch(request: SandboxRequest): SandboxLaunch {
      const chosen = commandNetwork(network, allowHost, request.network);
      const layout = { system, hidden, network: chosen, tmpfsMb: limits.tmpfsMb, ...(resolver ? { resolver } : {}), ...owner };
      const slirp = chosen === 'user' ? (options.slirpPath ?? '') : '';
      // `user`: the host's addresses are read on the host side, the routes added inside the new namespace.
      const stage =
        chosen === 'user'
          ? [
              '/bin/sh',
              '-c',
              NETNS_HOST_SCRIPT,
              'tsuka-netns-host',
              ipPath ?? 'ip',
              options.unsharePath ?? UNSHARE_PROGRAM,
              NETNS_STAGE_SCRIPT,
              routes.refuse,
              routes.allow,
            ]
          : [];
      return {
        file: '/bin/sh',
        args: [
          '-c',
          SANDBOX_WRAPPER_SCRIPT,
          'tsuka-sandbox',
          slirp,
          request.cgroup ?? '',
          ...rlimits,
          ...stage,
          bwrap,
          ...bubblewrapArguments(request, layout),
        ],
        // bwrap itself starts in the root; the command's own cwd is set by --chdir inside.
        cwd: request.root,
        env: { ...request.env, HOME: SANDBOX_HOME, TMPDIR: '/tmp' },
      };
    },
  };
}
