/**
 * Runs one shell command in its own process group so that a timeout, the Stop button or the end
 * of the shell can take down the whole tree it started (design §6.11), not just `/bin/sh`.
 * The command is launched by the injected sandbox: under bubblewrap the group is bwrap's, whose
 * death (`--die-with-parent`) takes down the sandbox's PID namespace and everything in it.
 */
import { spawn } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { TsukaError } from '../errors.js';
import { prepareCommandFolder } from './command-preparation.js';
import { createOutputCollector } from './output-collector.js';
import type { CommandSandbox, SandboxBind } from './command-sandbox.js';
import type { RoleNetwork } from './sandbox-network.js';
import type { CommandCgroup, SandboxLimitName } from './sandbox-limits.js';

export const DEFAULT_MAX_OUTPUT_BYTES = 200_000;
/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;
/** After SIGKILL, how long to wait for the pipes to close before giving up on them. */
const PIPE_CLOSE_GRACE_MS = 1_000;

export interface RunCommandOptions {
  command: string;
  cwd: string;
  /** How the command is isolated; chosen once at start (`selectCommandSandbox`). */
  sandbox: CommandSandbox;
  /** The command's jail root (the only folder it may write); defaults to `cwd`. */
  root?: string;
  /** The active role's network: false = none, `host` = the host's where allowed, true/unset = the sandbox's default. */
  network?: RoleNetwork;
  /** Should come from `createChildEnv`: the child sees exactly this. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Cap on collected output; head and tail are kept (default 200 000). */
  maxOutputBytes?: number;
  /** Host folders shown inside the sandbox (see `SandboxRequest.binds`). */
  binds?: SandboxBind[];
}

/** How a command ended. A non-zero exit is a result, not an error. */
export interface CommandResult {
  exitCode: number | null;
  signalName: string | null;
  /** stdout and stderr interleaved in arrival order. */
  output: string;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  /** Set when a sandbox limit stopped the command (the tree was killed). */
  limit?: SandboxLimitName;
  durationMs: number;
}

/** The command's pids cgroup, when the sandbox offers them; a folder that cannot be made is no reason to refuse the command. */
function openCgroup(sandbox: CommandSandbox): CommandCgroup | undefined {
  const parent = sandbox.processCgroups;
  if (!parent || !sandbox.limits) return undefined;
  try {
    return parent.create(sandbox.limits.maxProcesses);
  } catch {
    // e.g. the cgroup hierarchy was remounted since the start: RLIMIT-free, as on hosts without cgroups.
    return undefined;
  }
}

/** Calls `onHit` once a fork in the cgroup was refused (inotify on pids.events; checked again at exit). */
function watchCgroup(cgroup: CommandCgroup | undefined, onHit: () => void): FSWatcher | undefined {
  if (!cgroup) return undefined;
  try {
    const watcher = watch(path.join(cgroup.path, 'pids.events'), () => {
      if (cgroup.hitLimit()) onHit();
    });
    watcher.on('error', () => watcher.close());
    return watcher;
  } catch {
    return undefined;
  }
}

function isGone(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ESRCH';
}

/** Sends `signalName` to the whole process group; false when the group no longer exists. */
function signalGroup(pid: number, signalName: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signalName);
    return true;
  } catch (error) {
    if (isGone(error)) return false;
    throw error;
  }
}

/**
 * Runs `/bin/sh -c command` through the sandbox. Resolves when the output pipes close; rejects only when the shell
 * cannot be started (e.g. a missing cwd).
 */
export async function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  // A /goal staging of hard links has its files made private first (`command-preparation.ts`).
  await prepareCommandFolder(options.root ?? options.cwd);
  return runPrepared(options);
}

function runPrepared(options: RunCommandOptions): Promise<CommandResult> {
  const started = performance.now();
  const collector = createOutputCollector(options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);

  if (options.signal?.aborted) {
    return Promise.resolve({ exitCode: null, signalName: null, output: '', truncated: false, timedOut: false, aborted: true, durationMs: 0 });
  }

  return new Promise<CommandResult>((resolve, reject) => {
    const cgroup = openCgroup(options.sandbox);
    const launch = options.sandbox.launch({
      command: options.command,
      root: options.root ?? options.cwd,
      cwd: options.cwd,
      env: options.env,
      ...(options.network === undefined ? {} : { network: options.network }),
      ...(cgroup ? { cgroup: cgroup.path } : {}),
      ...(options.binds && options.binds.length > 0 ? { binds: options.binds } : {}),
    });
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(launch.file, launch.args, {
        cwd: launch.cwd,
        env: launch.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(launch.uid === undefined ? {} : { uid: launch.uid }),
        ...(launch.gid === undefined ? {} : { gid: launch.gid }),
      });
    } catch (error) {
      cgroup?.remove();
      // spawn throws (rather than emitting `error`) for some failures, e.g. EPERM switching users.
      reject(new TsukaError('command_start_failed', `The command could not be started in "${options.cwd}".`, { cause: error }));
      return;
    }
    let timedOut = false;
    let aborted = false;
    let limit: SandboxLimitName | undefined;
    const outputLimit = options.sandbox.limits ? options.sandbox.limits.maxOutputMb * 1024 * 1024 : Number.POSITIVE_INFINITY;
    let killing = false;
    let settled = false;
    let exitCode: number | null = null;
    let signalName: string | null = null;

    // Kill-phase timers are unref'd and left running after `close`: a process that ignored
    // SIGTERM but closed its pipes must still get SIGKILL.
    const later = (ms: number, action: () => void): NodeJS.Timeout => {
      const timer = setTimeout(action, ms);
      timer.unref();
      return timer;
    };

    const killTree = (): void => {
      const pid = child.pid;
      if (killing || pid === undefined) return;
      killing = true;
      if (!signalGroup(pid, 'SIGTERM')) return;
      later(KILL_GRACE_MS, () => {
        if (signalGroup(pid, 0)) signalGroup(pid, 'SIGKILL');
        // Something that left the group may still hold our pipes; stop waiting for it.
        later(PIPE_CLOSE_GRACE_MS, () => {
          child.stdout?.destroy();
          child.stderr?.destroy();
        });
      });
    };

    const onAbort = (): void => {
      aborted = true;
      killTree();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timeoutTimer = later(options.timeoutMs, () => {
      timedOut = true;
      killTree();
    });

    const stopAtLimit = (name: SandboxLimitName): void => {
      if (limit !== undefined || timedOut || aborted) return;
      limit = name;
      killTree();
    };
    const watcher = watchCgroup(cgroup, () => stopAtLimit('processes'));

    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      watcher?.close();
      if (cgroup?.hitLimit()) stopAtLimit('processes');
      cgroup?.remove();
      clearTimeout(timeoutTimer);
      options.signal?.removeEventListener('abort', onAbort);
      return true;
    };

    const collect = (chunk: Buffer): void => {
      collector.push(chunk);
      if (collector.totalBytes > outputLimit) stopAtLimit('output');
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);

    child.on('error', (error) => {
      if (!settle()) return;
      reject(new TsukaError('command_start_failed', `The command could not be started in "${options.cwd}".`, { cause: error }));
    });
    child.on('exit', (code, signal) => {
      exitCode = code;
      signalName = signal;
      // Background jobs the command left behind must not outlive it (nothing could stop them later).
      killTree();
    });
    child.on('close', () => {
      if (!settle()) return;
      resolve({
        exitCode,
        signalName,
        output: collector.text(),
        truncated: collector.truncated,
        timedOut,
        aborted,
        ...(limit ? { limit } : {}),
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}
