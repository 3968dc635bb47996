import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { createRunStore } from '../../../src/core/store/run-store.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-cli-runs-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function io(): CliIo & { out: string; err: string } {
  const result = {
    out: '',
    err: '',
    environment: { TSUKA_DATA_DIR: path.join(home, 'data'), TSUKA_WORKSPACE: path.join(home, 'workspace') },
    workingDirectory: home,
    stdout: (text: string) => void (result.out += text),
    stderr: (text: string) => void (result.err += text),
  };
  return result;
}

async function seedRuns(): Promise<{ older: string; latest: string }> {
  const store = await openStore({ dataDirectory: path.join(home, 'data') });
  const runs = createRunStore(store);
  const where = { platform: 'slack', channelId: 'slack:T1/C1' };
  const older = await runs.create({ kind: 'team', title: 'ship the release', startedBy: 'slack:U1', where });
  await runs.update(older.id, (record) => ({ ...record, status: 'completed', createdAt: record.createdAt - 60_000 }));
  const latest = await runs.create({ kind: 'ask', title: 'why does npm test fail', startedBy: 'slack:U1', where });
  await runs.appendEvent(latest.id, {
    type: 'tool-call',
    agent: 'geordi',
    tool: 'read_file',
    callId: 'c1',
    summary: 'read_file package.json',
    arguments: '{"path":"package.json"}',
  });
  await runs.appendEvent(latest.id, {
    type: 'tool-result',
    agent: 'geordi',
    tool: 'read_file',
    callId: 'c1',
    outcome: 'success',
    display: '40 B',
    output: '{"scripts":{"test":"vitest"}}',
  });
  await runs.update(latest.id, (record) => ({ ...record, status: 'failed' }));
  await store.close();
  return { older: older.id, latest: latest.id };
}

describe('tsuka runs and tsuka export', () => {
  it('lists recent runs with id, when, where, kind and outcome', async () => {
    const { older, latest } = await seedRuns();
    const cli = io();
    expect(await main(['runs'], cli)).toBe(0);
    const lines = cli.out.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${latest}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  slack:T1/C1  ask  failed  why does npm test fail$`));
    expect(lines[1]).toContain(`${older}`);
    expect(lines[1]).toContain('team  completed');
  });

  it('prints the latest run as Markdown by default, a named run as one JSON document with --json', async () => {
    const { older, latest } = await seedRuns();
    const markdown = io();
    expect(await main(['export'], markdown)).toBe(0);
    expect(markdown.out).toContain(`| Run | \`${latest}\` |`);
    expect(markdown.out).toContain('{"scripts":{"test":"vitest"}}');

    const json = io();
    expect(await main(['export', older, '--json'], json)).toBe(0);
    const document = JSON.parse(json.out) as { run: { id: string; kind: string } };
    expect(document.run).toMatchObject({ id: older, kind: 'team' });

    const missing = io();
    expect(await main(['export', 'no-such-run'], missing)).toBe(1);
    expect(missing.err).toContain('No run no-such-run');
  });
});
