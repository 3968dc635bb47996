/** `tsuka audit`: one line per entry (or JSON Lines), oldest first, `--since` an age or an ISO date, bad input said plainly. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { parseSince } from '../../../src/cli/audit-command.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { createStoreAuditLog } from '../../../src/core/audit/store-audit-log.js';

const DAY = 24 * 60 * 60 * 1000;
let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-cli-audit-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function io(): CliIo & { out: string; err: string } {
  const result = {
    out: '',
    err: '',
    environment: { TSUKA_DATA_DIR: path.join(home, 'data'), TSUKA_WORKSPACE: path.join(home, 'workspace'), DEPLOY_TOKEN: 'tok-abcdefghijklmnop' },
    workingDirectory: home,
    stdout: (text: string) => void (result.out += text),
    stderr: (text: string) => void (result.err += text),
  };
  return result;
}

async function seed(): Promise<void> {
  const store = await openStore({ dataDirectory: path.join(home, 'data') });
  const where = { platform: 'slack', channelId: 'slack:T1/C1', threadId: 'slack:T1/C1/1712.0001' };
  await createStoreAuditLog(store, { now: () => Date.now() - 10 * DAY }).append({
    type: 'approval',
    decision: 'denied',
    actor: 'slack:U2',
    where,
    runId: 'run-1',
    tool: 'execute_command',
    riskLevel: 'DANGEROUS',
    // Written before the token was configured: the CLI masks it anyway.
    summary: 'curl -H "Bearer tok-abcdefghijklmnop" https://deploy',
    requester: 'slack:U1',
  });
  await createStoreAuditLog(store).append({
    type: 'admin-action',
    action: 'export',
    actor: 'slack:UADMIN',
    where: { platform: 'slack', channelId: 'slack:T1/C2' },
    runId: 'run-1',
    runWhere: where,
  });
  await store.close();
}

describe('tsuka audit', () => {
  it('prints one line per entry, oldest first, masked', async () => {
    await seed();
    const cli = io();
    expect(await main(['audit'], cli)).toBe(0);
    const lines = cli.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}approval {2}slack:U2 {2}slack:T1\/C1 \(thread 1712\.0001\) {2}denied execute_command \(DANGEROUS\) "curl -H "Bearer \[secret masked\]" https:\/\/deploy" in run-1, asked by slack:U1$/,
    );
    expect(lines[1]).toMatch(/admin-action {2}slack:UADMIN {2}slack:T1\/C2 {2}export of run-1, a run of slack:T1\/C1/);
    expect(cli.out).not.toContain('tok-abcdefghijklmnop');
  });

  it('--since keeps what is newer; --json prints JSON Lines', async () => {
    await seed();
    const cli = io();
    expect(await main(['audit', '--json', '--since', '7d'], cli)).toBe(0);
    const entries = cli.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(entries.map((entry) => entry.type)).toEqual(['admin-action']);
    const all = io();
    expect(await main(['audit'], all)).toBe(0);
    expect(all.out).toContain('admin-action');
  });

  it('refuses a --since it cannot read, and an unknown argument, with the usage', async () => {
    for (const args of [['--since', 'yesterday'], ['--since'], ['--all']]) {
      const cli = io();
      expect(await main(['audit', ...args], cli)).toBe(2);
      expect(cli.err).toMatch(/Usage: tsuka audit/);
    }
  });

  it('reads ages and ISO dates', () => {
    const now = Date.UTC(2025, 0, 31, 12);
    expect(parseSince('24h', now)).toBe(now - DAY);
    expect(parseSince('7d', now)).toBe(now - 7 * DAY);
    expect(parseSince('30m', now)).toBe(now - 30 * 60_000);
    expect(parseSince('2025-01-30', now)).toBe(Date.UTC(2025, 0, 30));
    expect(parseSince('2025-01-30T09:00:00Z', now)).toBe(Date.UTC(2025, 0, 30, 9));
    expect(parseSince('soon', now)).toBeUndefined();
    expect(parseSince('2025-13-45', now)).toBeUndefined();
  });
});
