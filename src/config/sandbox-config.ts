/**
 * The command sandbox settings (`TSUKA_SANDBOX`, `TSUKA_SANDBOX_NETWORK`, `TSUKA_SANDBOX_ALLOW`,
 * `TSUKA_SANDBOX_USER`, `TSUKA_SANDBOX_HIDE` and the limits), validated with the rest of the configuration; the sandbox
 * itself is chosen at start from these.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SandboxUser } from '../core/safety/fallback-sandbox.js';
import type { SandboxMode } from '../core/safety/select-sandbox.js';
import type { SandboxNetworkSetting } from '../core/safety/sandbox-network.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from '../core/safety/sandbox-limits.js';
import type { SandboxAllowEntry } from '../core/safety/sandbox-reach.js';
import { readSandboxAllow } from './sandbox-allow-config.js';

const MODES: readonly SandboxMode[] = ['auto', 'bubblewrap', 'none', 'env-only'];
const NETWORKS: readonly SandboxNetworkSetting[] = ['auto', 'user', 'none', 'host'];
/** The limits' settings: variable, config-file key, field, lowest value. */
const LIMIT_SETTINGS: readonly [string, string, keyof SandboxLimits, number][] = [
  ['TSUKA_SANDBOX_MAX_PROCESSES', 'sandboxMaxProcesses', 'maxProcesses', 8],
  ['TSUKA_SANDBOX_MAX_MEMORY_MB', 'sandboxMaxMemoryMb', 'maxMemoryMb', 64],
  ['TSUKA_SANDBOX_MAX_FILE_MB', 'sandboxMaxFileMb', 'maxFileMb', 1],
  ['TSUKA_SANDBOX_TMPFS_MB', 'sandboxTmpfsMb', 'tmpfsMb', 1],
  ['TSUKA_SANDBOX_MAX_OUTPUT_MB', 'sandboxMaxOutputMb', 'maxOutputMb', 1],
];

export interface SandboxConfig {
  mode: SandboxMode;
  /** auto (user-mode without the host's loopback when it works, else none), user, none or host; enforced only under bubblewrap. */
  network: SandboxNetworkSetting;
  /** `TSUKA_SANDBOX_ALLOW`: what the user-mode network reaches among the host's addresses and the private ranges. */
  allow: SandboxAllowEntry[];
  limits: SandboxLimits;
  /** The fallback runs commands as this user. */
  user?: SandboxUser;
  /** Never visible to a sandboxed command: the data folder, the checkout, the `.env` folder, the bot's home, TSUKA_SANDBOX_HIDE. */
  hiddenPaths: string[];
}

export interface SandboxConfigInput {
  setting(envName: string, fileKey: string): string | undefined;
  problems: string[];
  hiddenPaths: string[];
  /** The content of /etc/passwd (tests inject it). */
  passwd?: () => string;
}

export function readSandboxConfig(input: SandboxConfigInput): SandboxConfig {
  const { setting, problems } = input;
  const modeRaw = (setting('TSUKA_SANDBOX', 'sandbox') ?? 'auto').toLowerCase();
  const mode = MODES.includes(modeRaw as SandboxMode) ? (modeRaw as SandboxMode) : 'auto';
  if (mode !== modeRaw)
    problems.push(
      `TSUKA_SANDBOX="${modeRaw}" is not valid: use auto (bubblewrap when it works here), bubblewrap (required), none (the fallback) or env-only (the fallback as the bot's own user, accepted while holding platform tokens).`,
    );
  const network = readNetwork(setting('TSUKA_SANDBOX_NETWORK', 'sandboxNetwork'), problems);
  const allow = readSandboxAllow(setting('TSUKA_SANDBOX_ALLOW', 'sandboxAllow'), problems);
  const userRaw = setting('TSUKA_SANDBOX_USER', 'sandboxUser');
  const user = userRaw === undefined ? undefined : resolveUser(userRaw, input.passwd ?? (() => readFileSync('/etc/passwd', 'utf8')), problems);
  const hide = readHide(setting('TSUKA_SANDBOX_HIDE', 'sandboxHide'), problems);
  const limits = { ...DEFAULT_SANDBOX_LIMITS };
  for (const [envName, fileKey, field, min] of LIMIT_SETTINGS) {
    const raw = setting(envName, fileKey);
    if (raw === undefined) continue;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min && value <= 1_000_000) limits[field] = value;
    else problems.push(`${envName}="${raw}" is not valid: use a whole number from ${min} to 1000000 (default ${DEFAULT_SANDBOX_LIMITS[field]}).`);
  }
  return { mode, network, allow, limits, ...(user ? { user } : {}), hiddenPaths: [...input.hiddenPaths, ...hide] };
}

/** auto|user|none|host; the older 1/true/yes/on and 0/false/no/off still mean auto and none. */
function readNetwork(raw: string | undefined, problems: string[]): SandboxNetworkSetting {
  const value = (raw ?? 'auto').toLowerCase();
  if (NETWORKS.includes(value as SandboxNetworkSetting)) return value as SandboxNetworkSetting;
  if (['1', 'true', 'yes', 'on'].includes(value)) return 'auto';
  if (['0', 'false', 'no', 'off'].includes(value)) return 'none';
  problems.push(
    `TSUKA_SANDBOX_NETWORK="${raw}" is not valid: use auto (a user-mode network without the host's loopback where slirp4netns works, else none), user, none or host.`,
  );
  return 'auto';
}

/** Comma-separated absolute host paths. */
function readHide(raw: string | undefined, problems: string[]): string[] {
  const paths = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const relative = paths.filter((entry) => !path.isAbsolute(entry));
  if (relative.length > 0)
    problems.push(`TSUKA_SANDBOX_HIDE holds relative paths (${relative.join(', ')}): give absolute host paths, e.g. /opt/secrets,/etc/app.env.`);
  return paths.filter((entry) => path.isAbsolute(entry)).map((entry) => path.resolve(entry));
}

/** `nobody`, `65534` or `65534:65534`; a name is looked up in /etc/passwd. */
function resolveUser(raw: string, passwd: () => string, problems: string[]): SandboxUser | undefined {
  const numeric = /^(\d+)(?::(\d+))?$/.exec(raw);
  if (numeric) return { name: raw, uid: Number(numeric[1]), gid: Number(numeric[2] ?? numeric[1]) };
  let entries: string;
  try {
    entries = passwd();
  } catch (error) {
    problems.push(`TSUKA_SANDBOX_USER="${raw}" cannot be looked up (${(error as Error).message}): give a numeric uid:gid instead.`);
    return undefined;
  }
  for (const line of entries.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === raw && uid !== undefined && gid !== undefined) return { name, uid: Number(uid), gid: Number(gid) };
  }
  problems.push(`TSUKA_SANDBOX_USER="${raw}" is not a user on this machine: create it, or name an existing one such as nobody.`);
  return undefined;
}
