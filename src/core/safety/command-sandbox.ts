/**
 * The command sandbox port (design §4, second wave): how an agent's shell command is launched.
 * One implementation is chosen once at start (`selectCommandSandbox`) and injected into every
 * place that runs an agent-controlled command; the process runner only spawns what it returns.
 */
import type { RoleNetwork, SandboxNetwork } from './sandbox-network.js';
import type { PidsCgroupParent, SandboxLimits } from './sandbox-limits.js';

/**
 * What isolates a command from the bot:
 * - `bubblewrap`: own user, PID, IPC, UTS (and optionally network) namespaces, a fresh /proc,
 *   a read-only system and only the command's root writable; nothing of the bot is visible.
 * - `separate-user`: no namespaces; the command runs as another Unix user (the bot's files,
 *   its /proc/<pid>/environ and its memory are out of that user's reach by ordinary permissions).
 * - `environment-only`: no namespaces, same user; only the scrubbed environment protects secrets.
 */
export type IsolationLevel = 'bubblewrap' | 'separate-user' | 'environment-only';

/** One command to launch. */
export interface SandboxRequest {
  /** The shell command line, run by `/bin/sh -c`. */
  command: string;
  /** The command's jail root (the workspace, or a /goal step's staging copy): the only writable folder. */
  root: string;
  /** Where the command starts; inside `root`. */
  cwd: string;
  /** The scrubbed environment the command should see. */
  env: NodeJS.ProcessEnv;
  /**
   * The active role's wish: false = no network, `host` = the host's network (loopback included)
   * where the setting allows it, true/unset = the sandbox's default.
   */
  network?: RoleNetwork;
  /** A pids cgroup folder the command joins before it starts (from `processCgroups`). */
  cgroup?: string;
  /**
   * Extra host paths made visible: an MCP server's own files read-only and its persistent home
   * read-write; for an agent command, read-only only, a /goal staging copy's dependency folders and
   * the repository's object store (`Workspace.sharedReadOnly`). Hidden paths inside them stay
   * hidden. Sandboxes without a mount namespace ignore them (everything is visible there already).
   */
  binds?: SandboxBind[];
}

export interface SandboxBind {
  source: string;
  /** Where it appears inside (default: the same path). */
  target?: string;
  writable?: boolean;
}

/** What the process runner spawns for a request. */
export interface SandboxLaunch {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Run as this user (set only by the fallback with a configured user). */
  uid?: number;
  gid?: number;
}

/** Turns a command into a launch. Implementations: `bubblewrap-sandbox.ts`, `fallback-sandbox.ts`. */
export interface CommandSandbox {
  readonly isolation: IsolationLevel;
  /** One line for the start banner and `tsuka doctor`, e.g. `isolation: bubblewrap (…)`. */
  readonly summary: string;
  /** Further lines for the banner and doctor: the network commands get, the limits they run under. */
  readonly details?: readonly string[];
  /** The network commands get by default (bubblewrap only; the fallback shares the host's). */
  readonly network?: SandboxNetwork;
  /** The limits commands run under (bubblewrap only). */
  readonly limits?: SandboxLimits;
  /** Where the runner creates a pids cgroup per command, when this host allows it. */
  readonly processCgroups?: PidsCgroupParent;
  launch(request: SandboxRequest): SandboxLaunch;
}
