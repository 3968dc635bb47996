/**
 * Commands under bubblewrap (https://github.com/containers/bubblewrap): a new user, PID, IPC, UTS
 * and cgroup namespace (and network namespace when the network is off), a fresh /proc that shows
 * only the sandbox's own processes, the system folders read-only, a private /tmp and home, a
 * minimal /dev, and the command's root bound read-write at its own path. Nothing else of the host
 * exists inside: not the data folder, not the bot's checkout, not the bot's home.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { CommandSandbox, SandboxLaunch, SandboxRequest } from './command-sandbox.js';

/** Host folders mirrored read-only (symlinks such as a merged-/usr `/bin` stay symlinks). */
export const SANDBOX_SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'] as const;
/** The command's home inside the sandbox: empty, private, gone when the command ends. */
export const SANDBOX_HOME = '/home/sandbox';

export interface BubblewrapSandboxOptions {
  /** The bwrap program (default `bwrap`, looked up on PATH). */
  bwrapPath?: string;
  /** Whether commands may use the network (a role can still turn it off for its own commands). */
  network: boolean;
  /**
   * Host folders that must never be visible: the data folder, the bot's checkout, the bot's home.
   * None is mounted; those that lie under a mirrored system folder or inside a command's root are
   * covered with an empty tmpfs.
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

/** The bwrap arguments for one request; exported for tests that check the layout without running it. */
export function bubblewrapArguments(
  request: SandboxRequest,
  layout: { system: SystemEntry[]; hidden: string[]; network: boolean; resolver?: string },
): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  if (layout.network && request.network !== false) args.push('--share-net');
  const mirrored: string[] = [];
  for (const entry of layout.system) {
    if (entry.link !== undefined) args.push('--symlink', entry.link, entry.path);
    else {
      args.push('--ro-bind', entry.path, entry.path);
      mirrored.push(entry.path);
    }
  }
  if (layout.resolver) args.push('--ro-bind-try', layout.resolver, layout.resolver);
  for (const hidden of layout.hidden) {
    if (mirrored.some((folder) => isInside(folder, hidden))) args.push('--tmpfs', hidden);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', SANDBOX_HOME);
  args.push('--bind', request.root, request.root);
  for (const hidden of layout.hidden) {
    if (isInside(request.root, hidden)) args.push('--tmpfs', hidden);
  }
  // MCP servers only (issue 26): their own files read-only, their home read-write; hidden paths inside stay hidden.
  for (const bind of request.binds ?? []) {
    const target = bind.target ?? bind.source;
    args.push(bind.writable ? '--bind' : '--ro-bind', bind.source, target);
    for (const hidden of layout.hidden) if (isInside(target, hidden)) args.push('--tmpfs', hidden);
  }
  args.push('--chdir', request.cwd, '--', '/bin/sh', '-c', request.command);
  return args;
}

export function createBubblewrapSandbox(options: BubblewrapSandboxOptions): CommandSandbox {
  const system = readSystemLayout();
  const hidden = [...new Set(options.hiddenPaths.map((hiddenPath) => path.resolve(hiddenPath)))].filter(
    // Never cover `/` or a whole system folder: that would hide the system itself.
    (hiddenPath) => hiddenPath !== '/' && !system.some((entry) => entry.path === hiddenPath || isInside(hiddenPath, entry.path)),
  );
  const resolver = resolverTarget(system.filter((entry) => entry.link === undefined).map((entry) => entry.path));
  const bwrap = options.bwrapPath ?? 'bwrap';
  return {
    isolation: 'bubblewrap',
    summary: `isolation: bubblewrap — commands see a read-only system and their own workspace only, in their own PID namespace and /proc; network ${options.network ? 'allowed (roles may turn it off)' : 'off'}${options.reason ? ` (${options.reason})` : ''}`,
    launch(request: SandboxRequest): SandboxLaunch {
      return {
        file: bwrap,
        args: bubblewrapArguments(request, { system, hidden, network: options.network, ...(resolver ? { resolver } : {}) }),
        // bwrap itself starts in the root; the command's own cwd is set by --chdir inside.
        cwd: request.root,
        env: { ...request.env, HOME: SANDBOX_HOME, TMPDIR: '/tmp' },
      };
    },
  };
}
