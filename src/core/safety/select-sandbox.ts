/**
 * Chooses the command sandbox once at start. `auto` uses bubblewrap when running it here actually
 * works (one real sandboxed `true`, with the same layout every command gets), else the declared
 * fallback; `bubblewrap` insists on it and fails the start when it does not work. The network is
 * chosen the same way: `auto` takes the user-mode network when slirp4netns works here, else none;
 * `user` insists on it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TsukaError } from '../errors.js';
import type { CommandSandbox } from './command-sandbox.js';
import { createBubblewrapSandbox } from './bubblewrap-sandbox.js';
import { createFallbackSandbox, type SandboxUser } from './fallback-sandbox.js';
import { findProgram, type SandboxNetwork, type SandboxNetworkSetting } from './sandbox-network.js';
import { resolveAllowEntries, type SandboxAllowEntry } from './sandbox-reach.js';
import { DEFAULT_SANDBOX_LIMITS, findPidsCgroupParent, type SandboxLimits } from './sandbox-limits.js';

export type SandboxMode = 'auto' | 'bubblewrap' | 'none' | 'env-only';

const PROBE_TIMEOUT_MS = 10_000;

export interface SandboxSettings {
  mode: SandboxMode;
  /**
   * `TSUKA_SANDBOX_NETWORK`: auto (user-mode when it works here, else none), user, none or host;
   * `true`/`false` are the older spelling of auto/none. Only bubblewrap can enforce anything.
   */
  network: SandboxNetworkSetting | boolean;
  /** Resource limits (default DEFAULT_SANDBOX_LIMITS). */
  limits?: SandboxLimits;
  /** The fallback runs commands as this user when set. */
  user?: SandboxUser;
  /** The data folder, the bot's checkout and its home: never visible inside bubblewrap. */
  hiddenPaths: string[];
  bwrapPath?: string;
  /** slirp4netns, prlimit and ip; looked up on the system PATH when unset, `''` for "not there" (tests). */
  slirpPath?: string;
  prlimitPath?: string;
  ipPath?: string;
  /** `TSUKA_SANDBOX_ALLOW`: what the user-mode network reaches among the host's addresses and the private ranges. */
  allow?: readonly SandboxAllowEntry[];
  /** Resolves an allow-list host to its IPv4 addresses, once, at the choice (default: the system resolver). */
  lookupHost?: (host: string) => Promise<string[]>;
  /** False: never use a pids cgroup (tests); default: when this host allows one. */
  useCgroups?: boolean;
  /**
   * The bot holds Slack or Discord tokens: then "environment only" isolation (the fallback as the
   * bot's own user) is refused unless chosen explicitly with `env-only` — a command could read them.
   */
  holdsPlatformTokens?: boolean;
}

/** The one line a start refused for its isolation says (issue 26). */
function refuseEnvironmentOnly(why: string): never {
  throw new TsukaError(
    'sandbox_unavailable',
    `TSUKA holds Slack/Discord tokens, and agent commands would run with "environment only" isolation here (${why}), where a command can read them: let bubblewrap work (the bubblewrap package with user namespaces; in Docker, the compose files' security_opt — docs/docker.md), or set TSUKA_SANDBOX=env-only to accept that.`,
  );
}

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The user-mode network's program and the rlimit helper, looked up on SYSTEM_PATH at start (the Docker image installs both). */
export const SLIRP4NETNS_PROGRAM = 'slirp4netns';
export const PRLIMIT_PROGRAM = 'prlimit';

function networkSetting(network: SandboxNetworkSetting | boolean): SandboxNetworkSetting {
  if (network === true) return 'auto';
  if (network === false) return 'none';
  return network;
}

/** Runs one sandboxed `true`; resolves to undefined when it worked, else to why not. */
export async function probeSandbox(sandbox: CommandSandbox): Promise<string | undefined> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'tsuka-sandbox-probe-'));
  try {
    const launch = sandbox.launch({ command: 'true', root, cwd: root, env: { PATH: '/usr/bin:/bin' } });
    return await new Promise<string | undefined>((resolve) => {
      const user = launch.uid === undefined ? {} : { uid: launch.uid, gid: launch.gid };
      try {
        execFile(launch.file, launch.args, { cwd: launch.cwd, env: launch.env, timeout: PROBE_TIMEOUT_MS, ...user }, (error, _stdout, stderr) => {
          if (!error) resolve(undefined);
          else resolve((String(stderr).trim().split('\n')[0] || error.message).slice(0, 200));
        });
      } catch (error) {
        // Some failures (EPERM switching users) are thrown by spawn itself, not reported to the callback.
        resolve(error instanceof Error ? error.message : String(error));
      }
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** The fallback; with a configured user, only once a command has actually run as that user. */
async function fallback(settings: SandboxSettings, reason: string): Promise<CommandSandbox> {
  const sandbox = createFallbackSandbox({ ...(settings.user ? { user: settings.user } : {}), reason });
  if (!settings.user) return sandbox;
  const failure = await probeSandbox(sandbox);
  if (failure === undefined) return sandbox;
  // Fail closed: silently running as the bot's own user would be a weaker level than configured.
  throw new TsukaError(
    'sandbox_unavailable',
    `TSUKA_SANDBOX_USER=${settings.user.name} but commands cannot run as that user (${failure}): run TSUKA as root so it can switch users, or unset TSUKA_SANDBOX_USER.`,
  );
}

export async function selectCommandSandbox(settings: SandboxSettings): Promise<CommandSandbox> {
  const wanted = networkSetting(settings.network);
  const networkNote = wanted === 'none' || wanted === 'user' ? `; TSUKA_SANDBOX_NETWORK=${wanted} cannot be enforced without bubblewrap` : '';
  if (settings.mode === 'env-only') return fallback(settings, `TSUKA_SANDBOX=env-only, chosen explicitly${networkNote}`);
  if (settings.mode === 'none') {
    if (settings.holdsPlatformTokens && !settings.user) refuseEnvironmentOnly('TSUKA_SANDBOX=none');
    return fallback(settings, `TSUKA_SANDBOX=none${networkNote}`);
  }
  const reason = settings.mode === 'auto' ? 'auto: bwrap works here' : 'TSUKA_SANDBOX=bubblewrap';
  const slirpPath = settings.slirpPath ?? findProgram(SLIRP4NETNS_PROGRAM, SYSTEM_PATH);
  const prlimitPath = settings.prlimitPath ?? findProgram(PRLIMIT_PROGRAM, SYSTEM_PATH);
  const ipPath = settings.ipPath ?? findProgram('ip', SYSTEM_PATH);
  const allowed = await resolveAllowEntries(settings.allow ?? [], settings.lookupHost);
  const processCgroups = settings.useCgroups === false ? undefined : findPidsCgroupParent();
  const make = (network: SandboxNetwork, why: string) =>
    createBubblewrapSandbox({
      network,
      hiddenPaths: settings.hiddenPaths,
      reason: why,
      allowHostNetwork: wanted !== 'none',
      limits: settings.limits ?? DEFAULT_SANDBOX_LIMITS,
      ...(slirpPath ? { slirpPath } : {}),
      ...(prlimitPath ? { prlimitPath } : {}),
      ...(ipPath ? { ipPath } : {}),
      allowed,
      ...(processCgroups ? { processCgroups } : {}),
      ...(settings.bwrapPath ? { bwrapPath: settings.bwrapPath } : {}),
    });
  let networkFailure: string | undefined;
  if (wanted === 'user' || wanted === 'auto') {
    if (!ipPath) networkFailure = "ip (iproute2) is not installed: without it the user-mode network cannot refuse the host's addresses and the private ranges";
    else if (slirpPath) {
      const userNetwork = make('user', reason);
      networkFailure = await probeSandbox(userNetwork);
      if (networkFailure === undefined) return userNetwork;
    } else networkFailure = 'slirp4netns is not installed';
    if (wanted === 'user') {
      const bubblewrapWorks = (await probeSandbox(make('none', reason))) === undefined;
      if (bubblewrapWorks)
        throw new TsukaError(
          'sandbox_unavailable',
          `TSUKA_SANDBOX_NETWORK=user but the user-mode network does not work here (${networkFailure}): install slirp4netns and iproute2, or set TSUKA_SANDBOX_NETWORK=auto, none or host.`,
        );
    }
  }
  const network: SandboxNetwork = wanted === 'host' ? 'host' : 'none';
  const bubblewrap = make(network, networkFailure ? `${reason}; no user-mode network: ${networkFailure}` : reason);
  const failure = await probeSandbox(bubblewrap);
  if (failure === undefined) return bubblewrap;
  if (settings.mode === 'bubblewrap') {
    throw new TsukaError(
      'sandbox_unavailable',
      `TSUKA_SANDBOX=bubblewrap but bubblewrap does not work here (${failure}): install the bubblewrap package and allow user namespaces, or set TSUKA_SANDBOX=auto or none.`,
    );
  }
  if (settings.holdsPlatformTokens && !settings.user) refuseEnvironmentOnly(`bubblewrap unavailable: ${failure}`);
  return fallback(settings, `bubblewrap unavailable: ${failure}${networkNote}`);
}
