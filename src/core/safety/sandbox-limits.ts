/**
 * Resource limits for sandboxed commands (issue 29): processes, memory, file size, tmpfs size and
 * output. Where the bot can create a pids cgroup (root with a writable cgroup v1 `pids` hierarchy,
 * or a delegated cgroup v2 folder), every command gets its own cgroup with `pids.max`, and the
 * runner stops a command as soon as a fork was refused. Otherwise the process limit falls back to
 * RLIMIT_NPROC, which counts every process of the bot's user (and does not bind root at all).
 * Memory and file size are rlimits set with prlimit(1) on bwrap and inherited by the command.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface SandboxLimits {
  /** Processes (and threads) alive at once in one command. */
  maxProcesses: number;
  /** Address space of each process (RLIMIT_AS), in MiB. */
  maxMemoryMb: number;
  /** Largest file a command may write (RLIMIT_FSIZE), in MiB. */
  maxFileMb: number;
  /** Size of each of the sandbox's tmpfs folders (/tmp, the home, /dev/shm), in MiB. */
  tmpfsMb: number;
  /** Output after which the command is stopped, in MiB (the result keeps only head and tail anyway). */
  maxOutputMb: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { maxProcesses: 256, maxMemoryMb: 4096, maxFileMb: 1024, tmpfsMb: 512, maxOutputMb: 32 };

/** Which limit stopped a command. */
export type SandboxLimitName = 'processes' | 'output';

const MIB = 1024 * 1024;

/** One command's pids cgroup: the wrapper joins it; the runner watches `events` and removes it. */
export interface CommandCgroup {
  path: string;
  /** True once a fork was refused because of `pids.max`. */
  hitLimit(): boolean;
  remove(): void;
}

/** Where this process may create pids cgroups, found by trying (once, at start). */
export interface PidsCgroupParent {
  path: string;
  create(maxProcesses: number): CommandCgroup;
}

let counter = 0;

function candidateParents(): string[] {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const line of lines) {
    const [, controllers, relative] = line.split(':');
    if (relative === undefined) continue;
    if (controllers?.split(',').includes('pids')) found.push(path.join('/sys/fs/cgroup/pids', relative));
    else if (controllers === '') found.push(path.join('/sys/fs/cgroup', relative));
  }
  return found;
}

function makeCgroup(parent: string, maxProcesses: number): CommandCgroup {
  const folder = path.join(parent, `tsuka-${process.pid}-${++counter}`);
  mkdirSync(folder);
  try {
    writeFileSync(path.join(folder, 'pids.max'), String(maxProcesses));
  } catch (error) {
    rmdirSync(folder);
    throw error;
  }
  return {
    path: folder,
    hitLimit() {
      try {
        const match = /^max (\d+)/m.exec(readFileSync(path.join(folder, 'pids.events'), 'utf8'));
        return match !== null && Number(match[1]) > 0;
      } catch {
        return false;
      }
    },
    remove() {
      // The last processes may still be being reaped: a few more tries shortly after.
      const attempt = (left: number): void => {
        try {
          rmdirSync(folder);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EBUSY' && left > 0) setTimeout(() => attempt(left - 1), 20).unref();
          // Otherwise gone already, or still busy after a second: an empty folder left behind is harmless.
        }
      };
      attempt(50);
    },
  };
}

/**
 * A folder where a child cgroup with `pids.max` can be created and joined, or undefined. Tried for
 * real: a probe cgroup is created and a shell joins it.
 */
export function findPidsCgroupParent(): PidsCgroupParent | undefined {
  for (const parent of candidateParents()) {
    let probe: CommandCgroup | undefined;
    try {
      probe = makeCgroup(parent, 8);
      execFileSync('/bin/sh', ['-c', 'echo $$ > "$0/cgroup.procs"', probe.path], { stdio: 'ignore', timeout: 5_000 });
      rmdirSync(probe.path);
      return { path: parent, create: (maxProcesses) => makeCgroup(parent, maxProcesses) };
    } catch {
      if (probe) {
        try {
          rmdirSync(probe.path);
        } catch {
          // Left behind empty; harmless.
        }
      }
    }
  }
  return undefined;
}

/** `prlimit` arguments for bwrap; RLIMIT_NPROC only when no cgroup counts processes and the bot is not root. */
export function prlimitArguments(limits: SandboxLimits, withNproc: boolean): string[] {
  const args = [`--as=${limits.maxMemoryMb * MIB}`, `--fsize=${limits.maxFileMb * MIB}`];
  if (withNproc) args.push(`--nproc=${limits.maxProcesses}`);
  return args;
}

/** The line a tool result starts with when a limit stopped the command. */
export function limitMessage(limit: SandboxLimitName, limits: SandboxLimits): string {
  return limit === 'processes'
    ? `stopped: the command reached the sandbox's process limit (${limits.maxProcesses}) — TSUKA_SANDBOX_MAX_PROCESSES`
    : `stopped: the command's output reached the sandbox's output limit (${limits.maxOutputMb} MB) — TSUKA_SANDBOX_MAX_OUTPUT_MB`;
}

/** One line for the banner and doctor: which limits are enforced and how. */
export function describeLimits(limits: SandboxLimits, processLimitBy: 'cgroup' | 'rlimit' | 'none', prlimit: boolean): string {
  const processes =
    processLimitBy === 'cgroup'
      ? `${limits.maxProcesses} processes (pids cgroup)`
      : processLimitBy === 'rlimit'
        ? `${limits.maxProcesses} processes (RLIMIT_NPROC: counts all of the bot user's processes)`
        : 'processes not limited (root without a writable pids cgroup)';
  const rlimits = prlimit
    ? `${limits.maxMemoryMb} MB address space and ${limits.maxFileMb} MB files per process`
    : 'memory and file size not limited (no prlimit)';
  return `limits: ${processes}; ${rlimits}; ${limits.tmpfsMb} MB tmpfs; output stopped past ${limits.maxOutputMb} MB`;
}
