/**
 * `tsuka backup` while TSUKA runs holds the latest run; `ask`, `doctor` and `backup` beside a running
 * instance leave its pending approval alone; `doctor` shows the store's size and rows; old state is
 * pruned at start (TSUKA_RETENTION_DAYS).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { createSessionStore } from '../../../src/core/store/session-store.js';
import { createStoreAuditLog } from '../../../src/core/audit/store-audit-log.js';
import { startApp } from '../../../src/app/start-app.js';
import { testAppConfig } from '../../support/test-app-config.js';
import { cliEnvironment } from '../../support/cli-process.js';
import { startPlaygroundHarness, type PlaygroundHarness } from '../playground/playground-harness.js';

let harness: PlaygroundHarness | undefined;
const cleanup: string[] = [];
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  for (const folder of cleanup.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function cli(home: string, modelBaseURL: string, argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    environment: cliEnvironment(home, { TSUKA_LLM_BASE_URL: modelBaseURL }),
    workingDirectory: home,
  };
  const status = await main(argv, io);
  return { status, stdout, stderr };
}

describe('backup beside a running instance', () => {
  it('ask, doctor and backup leave a pending approval alone; the backup holds the latest run', async () => {
    harness = await startPlaygroundHarness();
    const h = harness;
    const home = path.dirname(h.workspace);
    h.model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'kept.txt', content: 'kept' } }] });
    const root = await h.say('@geordi write kept.txt');
    await h.waitFor(() => h.thread(root).some((message) => message.buttons.some((button) => button.actionId === 'tsuka_approve')));
    const prompt = h.thread(root).find((message) => message.buttons.some((button) => button.actionId === 'tsuka_approve'))!;

    h.model.enqueue({ text: 'asked from the terminal' });
    const ask = await cli(home, h.model.baseURL, ['ask', 'geordi', 'hello']);
    expect(ask.status).toBe(0);
    const doctor = await cli(home, h.model.baseURL, ['doctor']);
    expect(doctor.stdout).toMatch(/· store size \d+(\.\d)? (B|KB|MB); rows: approvals 1, .*\bruns 2$/m);
    expect(doctor.stdout).toMatch(/retention: runs and sessions older than 90 days are pruned hourly/);
    const early = await cli(home, h.model.baseURL, ['backup', 'early.sqlite']);
    expect(early.status).toBe(0);

    h.model.enqueue({ text: 'Written after the backup.' });
    const approve = prompt.buttons[0]!;
    expect((await h.post('/api/actions', { message: prompt.id, actionId: approve.actionId, value: approve.value })).status).toBe(202);
    await h.waitFor(() => h.thread(root).some((message) => message.text.includes('Written after the backup.') && message.buttons.length === 0));
    expect(h.ephemerals.some((message) => /already decided/.test(message.text))).toBe(false);

    const backup = await cli(home, h.model.baseURL, ['backup', 'latest.sqlite']);
    expect(backup.status).toBe(0);
    expect(backup.stdout).toMatch(/written to .*latest\.sqlite/);
    // The copy is consistent and current: the run that just ended is there, completed, with its last reply.
    const runIn = async (file: string) => {
      const copy = await openStore({ url: `sqlite://${path.join(home, file)}`, dataDirectory: home });
      try {
        const runs = createRunStore(copy);
        const run = (await runs.list()).find((candidate) => candidate.title === 'write kept.txt');
        return { run, events: run ? await runs.events(run.id) : [] };
      } finally {
        await copy.close();
      }
    };
    const latest = await runIn('latest.sqlite');
    expect(latest.run?.status).toBe('completed');
    expect(latest.events.some((event) => event.type === 'message' && event.text.includes('Written after the backup.'))).toBe(true);
    expect((await runIn('early.sqlite')).run?.status).toBe('running');
    // A backup never overwrites.
    const again = await cli(home, h.model.baseURL, ['backup', 'latest.sqlite']);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already exists: choose a new file name/);
  }, 60_000);

  it('prunes runs with their events, and sessions, older than TSUKA_RETENTION_DAYS at start; running runs stay; the audit log is kept longer', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-retention-'));
    cleanup.push(home);
    const config = testAppConfig(home, 'http://127.0.0.1:9/v1', { TSUKA_RETENTION_DAYS: '30' });
    const day = 24 * 60 * 60 * 1000;
    const seed = await openStore({ dataDirectory: config.dataDirectory });
    const runs = createRunStore(seed);
    const where = { platform: 'playground', channelId: 'general' } as const;
    await runs.create({ id: 'old', kind: 'ask', title: 'old', startedBy: 'u', where, status: 'completed', createdAt: Date.now() - 40 * day });
    await runs.update('old', (run) => ({ ...run, endedAt: Date.now() - 40 * day }));
    await runs.appendEvent('old', { type: 'message', agent: 'u', text: 'old question' });
    // What a /goal keeps to be resumed goes with its run.
    await seed.namespace<unknown>('goal-runs').set('old', { objective: 'old goal', approved: true, finished: [] });
    await seed.namespace<unknown>('goal-runs').set('recent', { objective: 'recent goal', approved: true, finished: [] });
    await runs.create({ id: 'old-running', kind: 'ask', title: 'long', startedBy: 'u', where, status: 'running', createdAt: Date.now() - 40 * day });
    await runs.create({ id: 'recent', kind: 'ask', title: 'recent', startedBy: 'u', where, status: 'completed', createdAt: Date.now() - 2 * day });
    await createSessionStore(seed, { now: () => Date.now() - 40 * day }).save({
      threadId: 'playground:general/old',
      character: 'geordi',
      history: [],
      updatedAt: 0,
    });
    await createSessionStore(seed).save({ threadId: 'playground:general/new', character: 'geordi', history: [], updatedAt: 0 });
    // The audit log outlives runs: 100 days is past the runs' 30 but within the audit's 365 (the default).
    for (const age of [400, 100]) {
      await createStoreAuditLog(seed, { now: () => Date.now() - age * day }).append({ type: 'export', actor: `age-${age}`, runId: 'old', format: 'md' });
    }
    await seed.close();

    const app = await startApp({ config, io: { stdout: () => undefined, stderr: () => undefined, environment: {}, workingDirectory: home } });
    try {
      expect(await app.engine.runs.get('old')).toBeUndefined();
      expect(await app.engine.runs.events('old')).toEqual([]);
      expect(await app.engine.store.namespace('goal-runs').get('old')).toBeUndefined();
      expect(await app.engine.store.namespace('goal-runs').get('recent')).toMatchObject({ objective: 'recent goal' });
      expect(await app.engine.runs.get('recent')).toMatchObject({ status: 'completed' });
      // Still running when the process stopped: interrupted by recovery, never pruned for its age.
      expect(await app.engine.runs.get('old-running')).toMatchObject({ status: 'interrupted' });
      expect(await app.engine.sessions.get('playground:general/old')).toBeUndefined();
      expect(await app.engine.sessions.get('playground:general/new')).toMatchObject({ character: 'geordi' });
      expect((await app.engine.audit.list()).map((entry) => entry.actor)).toEqual(['age-100']);
    } finally {
      await app.stop();
    }
  });
});
