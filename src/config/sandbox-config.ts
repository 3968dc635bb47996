/**
 * The command sandbox settings (`TSUKA_SANDBOX`, `TSUKA_SANDBOX_NETWORK`, `TSUKA_SANDBOX_USER`),
 * validated with the rest of the configuration; the sandbox itself is chosen at start from these.
 */
import { readFileSync } from 'node:fs';
import type { SandboxUser } from '../core/safety/fallback-sandbox.js';
import type { SandboxMode } from '../core/safety/select-sandbox.js';

const MODES: readonly SandboxMode[] = ['auto', 'bubblewrap', 'none'];

export interface SandboxConfig {
  mode: SandboxMode;
  /** Commands may use the network (default); roles can narrow it; enforced only under bubblewrap. */
  network: boolean;
  /** The fallback runs commands as this user. */
  user?: SandboxUser;
  /** Never visible to a sandboxed command: the data folder, the checkout, the `.env` folder, the bot's home. */
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
  if (mode !== modeRaw) problems.push(`TSUKA_SANDBOX="${modeRaw}" is not valid: use auto (bubblewrap when it works here), bubblewrap (required) or none.`);
  const networkRaw = (setting('TSUKA_SANDBOX_NETWORK', 'sandboxNetwork') ?? '1').toLowerCase();
  const network = !['0', 'false', 'no', 'off'].includes(networkRaw);
  if (network && !['1', 'true', 'yes', 'on'].includes(networkRaw))
    problems.push(`TSUKA_SANDBOX_NETWORK="${networkRaw}" is not valid: use 1 (commands may use the network) or 0.`);
  const userRaw = setting('TSUKA_SANDBOX_USER', 'sandboxUser');
  const user = userRaw === undefined ? undefined : resolveUser(userRaw, input.passwd ?? (() => readFileSync('/etc/passwd', 'utf8')), problems);
  return { mode, network, ...(user ? { user } : {}), hiddenPaths: input.hiddenPaths };
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
