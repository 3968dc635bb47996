/**
 * `tsuka audit [--json] [--since <ISO date | 24h | 7d | 30m>]`: the audit log of this data folder,
 * oldest first — one line per entry, or JSON Lines with `--json`. It reads the store the way
 * `tsuka runs` does, so it works while `tsuka start` runs on the same data folder.
 */
import type { AppConfig } from '../config/app-config.js';
import type { ConsoleIo as CliIo } from '../app/console-io.js';
import { openStore } from '../core/store/open-store.js';
import { createStoreAuditLog } from '../core/audit/store-audit-log.js';
import type { AuditEntry, AuditPlace } from '../core/audit/audit-log.js';
import { createSecretMasker } from '../core/safety/secret-mask.js';

const USAGE = 'Usage: tsuka audit [--json] [--since <ISO date | 24h | 7d | 30m>]\n';
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `24h`, `7d`, `30m` (before `now`) or an ISO date/time; undefined when it is neither. */
export function parseSince(text: string, now: number): number | undefined {
  const relative = /^(\d+)([mhd])$/.exec(text.trim());
  if (relative) return now - Number(relative[1]) * UNIT_MS[relative[2]!]!;
  if (!/^\d{4}-\d\d-\d\d/.test(text.trim())) return undefined;
  const time = Date.parse(text.trim());
  return Number.isNaN(time) ? undefined : time;
}

const place = (where: AuditPlace | undefined): string =>
  where ? `${where.platform}:${where.channelId}`.replace(/^(\w+):\1:/, '$1:') + (where.threadId ? ` (thread ${where.threadId.split('/').at(-1)})` : '') : '-';

/** What happened, in words, after the time, the type and who did it. */
function describe(entry: AuditEntry): string {
  switch (entry.type) {
    case 'approval':
      return `${entry.refused ? `refused as ${entry.refused} (${entry.why ?? 'no reason'}), ` : ''}${entry.decision} ${entry.tool} (${entry.riskLevel}) "${entry.summary}" in ${entry.runId}${entry.requester ? `, asked by ${entry.requester}` : ''}`;
    case 'export':
      return `exported ${entry.runId} (${entry.format})`;
    case 'admin-action':
      return `${entry.action} of ${entry.runId}, a run of ${place(entry.runWhere)}`;
    default:
      return `${entry.type.replace('memory-', '')} fact ${entry.factId}${entry.scope ? ` (scope ${entry.scope})` : ''}`;
  }
}

export function formatAuditLine(entry: AuditEntry): string {
  const when = new Date(entry.at).toISOString().slice(0, 19).replace('T', ' ');
  return `${when}  ${entry.type}  ${entry.actor ?? 'tsuka'}  ${place(entry.where)}  ${describe(entry)}`;
}

export async function runAudit(args: string[], config: AppConfig, io: CliIo, now: number = Date.now()): Promise<number> {
  const json = args.includes('--json');
  let since: number | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--json') continue;
    const value = arg === '--since' ? args[++index] : arg.startsWith('--since=') ? arg.slice('--since='.length) : undefined;
    if (value === undefined) {
      io.stderr(`${arg === '--since' ? '--since needs a value.' : `Unknown argument ${arg}.`}\n${USAGE}`);
      return 2;
    }
    since = parseSince(value, now);
    if (since === undefined) {
      io.stderr(`--since ${value}: give an ISO date (2025-01-31, 2025-01-31T09:00Z) or an age (30m, 24h, 7d).\n${USAGE}`);
      return 2;
    }
  }
  const store = await openStore({ url: config.storeUrl, dataDirectory: config.dataDirectory });
  let entries: AuditEntry[];
  try {
    entries = await createStoreAuditLog(store).list({ since });
  } finally {
    await store.close();
  }
  // Entries are masked when written; masking again guards entries written before a secret was configured.
  const maskSecrets = createSecretMasker(config.environment);
  if (json) {
    for (const entry of entries) io.stdout(`${maskSecrets(JSON.stringify(entry))}\n`);
    return 0;
  }
  if (entries.length === 0) io.stdout(since === undefined ? 'The audit log is empty.\n' : 'Nothing in the audit log since then.\n');
  for (const entry of entries) io.stdout(`${maskSecrets(formatAuditLine(entry))}\n`);
  return 0;
}
