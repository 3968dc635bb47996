import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import type { RunRecord } from '../../../src/core/store/run-types.js';
import { useTempDirectories } from './support/temp-directory.js';

const tempDirectory = useTempDirectories();
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function open(dataDirectory?: string): Promise<Store> {
  const store = await openStore(dataDirectory ? { dataDirectory } : { url: 'memory', dataDirectory: '/unused' });
  opened.push(store);
  return store;
}

const newRun = (title: string): Omit<RunRecord, 'id' | 'status' | 'createdAt'> => ({
  kind: 'team',
  title,
  startedBy: 'slack:U1',
  where: { platform: 'slack', channelId: 'slack:T1/C1', threadId: 'slack:T1/C1/1.0' },
});

describe('run store', () => {
  it('creates running records with ids and refuses a duplicate id', async () => {
    let clock = 1_000;
    const runs = createRunStore(await open(), { now: () => clock++ });
    const run = await runs.create(newRun('fix tests'));
    expect(run).toMatchObject({ status: 'running', createdAt: 1_000, title: 'fix tests' });
    expect(run.id).toMatch(/^run-/);
    expect(await runs.get(run.id)).toEqual(run);
    await expect(runs.create({ ...newRun('again'), id: run.id })).rejects.toThrow(/already exists/);
  });

  it('appends events in order with seq and time, kept apart per run', async () => {
    let clock = 0;
    const runs = createRunStore(await open(), { now: () => (clock += 10) });
    const a = await runs.create({ ...newRun('a'), id: 'a' });
    const a1 = await runs.create({ ...newRun('a1'), id: 'a:1' });
    await runs.appendEvent(a.id, { type: 'message', agent: 'geordi', text: 'hello' });
    await runs.appendEvent(a1.id, { type: 'note', text: 'other run' });
    const call = await runs.appendEvent(a.id, { type: 'tool-call', agent: 'geordi', tool: 'read_file', summary: 'read_file x' });
    expect(call).toMatchObject({ seq: 2, type: 'tool-call' });
    const events = await runs.events(a.id);
    expect(events.map((event) => [event.seq, event.type])).toEqual([
      [1, 'message'],
      [2, 'tool-call'],
    ]);
    expect(events[1]!.at).toBeGreaterThan(events[0]!.at);
    expect((await runs.events(a1.id)).map((event) => event.type)).toEqual(['note']);
  });

  it('numbers 300 concurrent appends 1..300 without losing one', async () => {
    const runs = createRunStore(await open(await tempDirectory()));
    const run = await runs.create(newRun('busy'));
    await Promise.all(Array.from({ length: 300 }, (_, index) => runs.appendEvent(run.id, { type: 'note', text: `n${index}` })));
    const events = await runs.events(run.id);
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 300 }, (_, index) => index + 1));
    expect(new Set(events.map((event) => (event.type === 'note' ? event.text : ''))).size).toBe(300);
  });

  it('continues the numbering after a restart and keeps the log intact', async () => {
    const directory = await tempDirectory();
    const first = await openStore({ dataDirectory: directory });
    const runsBefore = createRunStore(first);
    const run = await runsBefore.create(newRun('durable'));
    await runsBefore.appendEvent(run.id, { type: 'message', agent: 'spock', text: 'one' });
    await runsBefore.appendEvent(run.id, { type: 'approval', tool: 'write_file', outcome: 'approved', decidedBy: 'slack:U1' });
    await first.close();

    const runs = createRunStore(await open(directory));
    const next = await runs.appendEvent(run.id, { type: 'status', status: 'completed' });
    expect(next.seq).toBe(3);
    expect((await runs.events(run.id)).map((event) => event.type)).toEqual(['message', 'approval', 'status']);
    expect((await runs.get(run.id))?.title).toBe('durable');
  });

  it('serializes concurrent record updates', async () => {
    const runs = createRunStore(await open(await tempDirectory()));
    const run = await runs.create(newRun('stats'));
    await Promise.all(
      Array.from({ length: 50 }, () => runs.update(run.id, (record) => ({ ...record, stats: { steps: Number(record.stats?.steps ?? 0) + 1 } }))),
    );
    expect((await runs.get(run.id))?.stats?.steps).toBe(50);
    await expect(runs.update('missing', (record) => record)).rejects.toThrow(/Unknown run/);
  });

  it('lists newest first, filtered by status and limited', async () => {
    let clock = 0;
    const runs = createRunStore(await open(), { now: () => ++clock });
    const first = await runs.create(newRun('first'));
    const second = await runs.create(newRun('second'));
    const third = await runs.create(newRun('third'));
    await runs.update(second.id, (record) => ({ ...record, status: 'completed', endedAt: 99 }));
    expect((await runs.list()).map((record) => record.title)).toEqual(['third', 'second', 'first']);
    expect((await runs.list({ status: 'running' })).map((record) => record.id)).toEqual([third.id, first.id]);
    expect((await runs.list({ limit: 1 })).map((record) => record.id)).toEqual([third.id]);
  });

  it('marks only running runs interrupted, with a status event', async () => {
    const runs = createRunStore(await open());
    const running = await runs.create(newRun('running'));
    const done = await runs.create(newRun('done'));
    await runs.update(done.id, (record) => ({ ...record, status: 'completed' }));
    const interrupted = await runs.markInterruptedRunning();
    expect(interrupted.map((record) => record.id)).toEqual([running.id]);
    expect(interrupted[0]).toMatchObject({ status: 'interrupted' });
    expect(interrupted[0]!.endedAt).toBeTypeOf('number');
    expect((await runs.get(done.id))?.status).toBe('completed');
    expect((await runs.events(running.id)).at(-1)).toMatchObject({ type: 'status', status: 'interrupted' });
    expect(await runs.markInterruptedRunning()).toEqual([]);
  });
});
