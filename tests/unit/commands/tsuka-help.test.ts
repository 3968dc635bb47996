/** `/tsuka help` is grouped, one line a command with what it does, and explains every subcommand the router takes. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_SUBCOMMANDS } from '../../../src/commands/tsuka/run-subcommands.js';
import { SCHEDULE_SUBCOMMANDS } from '../../../src/commands/tsuka/schedule-subcommands.js';
import { HELPED_SUBCOMMANDS, TSUKA_HELP } from '../../../src/commands/tsuka/tsuka-help.js';

const router = readFileSync(path.resolve(import.meta.dirname, '../../../src/commands/tsuka/tsuka-command.ts'), 'utf8');

describe('/tsuka help', () => {
  it('explains exactly the subcommands the router takes', () => {
    const routed = new Set([...[...router.matchAll(/case '([a-z]+)':/g)].map((match) => match[1]!), ...RUN_SUBCOMMANDS, ...SCHEDULE_SUBCOMMANDS]);
    expect(routed.size).toBeGreaterThan(20);
    expect([...routed].sort()).toEqual([...HELPED_SUBCOMMANDS].sort());
  });

  it('is grouped under headings, each command on its own line with what it does', () => {
    const lines = TSUKA_HELP.split('\n');
    const headings = lines.filter((line) => /^\*\*[A-Z][a-z ]+\*\*$/.test(line));
    expect(headings).toEqual(['**Talk**', '**Model**', '**Memory and decisions**', '**Runs**', '**This channel**']);
    const entries = lines.filter((line) => line.startsWith('• '));
    expect(entries.length).toBeGreaterThanOrEqual(18);
    for (const entry of entries) expect(entry).toMatch(/^• `[^`]+` — \S.{8,}$/);
    // Discord's message content limit: the help is one ephemeral message on every platform.
    expect(TSUKA_HELP.length).toBeLessThanOrEqual(2_000);
    // No line lists a run of unexplained names, as the old one-line help did.
    for (const line of lines) expect(line.split('|').length).toBeLessThanOrEqual(6);
  });
});
