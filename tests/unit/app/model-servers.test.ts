/**
 * Several model servers (issue 13): `TSUKA_LLM_BASE_URL` lists two scripted OpenAI-compatible
 * servers serving the same model, one generation at a time each. Calls are spread over both, a
 * third waits with its place in the queue, a server that refuses or fails before its first token
 * is skipped and the call retried on the other, and a server found again by a probe is used again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectModelServer, findModelServer, type ModelConnection } from '../../../src/app/model-connection.js';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';
import type { Coordination } from '../../../src/core/coordination/coordination.js';
import type { LanguageModel } from '../../../src/core/model/language-model.js';
import { silentLogger } from '../../../src/core/logger.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../../support/scripted-model-server.js';
import { testAppConfig } from '../../support/test-app-config.js';

const MODEL = 'pool-model:7b';
let home: string;
let servers: ScriptedModelServer[];
let coordination: Coordination;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-servers-'));
  servers = [await startScriptedModelServer({ modelId: MODEL }), await startScriptedModelServer({ modelId: MODEL })];
  coordination = createLocalCoordination();
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await coordination.close();
  await rm(home, { recursive: true, force: true });
});

/** A promise the test settles by hand: the scripted server holds a stream until it does. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

async function text(model: LanguageModel, signal: AbortSignal): Promise<string> {
  let out = '';
  for await (const part of model.stream({ messages: [{ role: 'user', content: 'hi' }], signal })) if (part.type === 'text-delta') out += part.text;
  return out;
}

async function connect(baseURLs: string[], slots = coordination.slots): Promise<ModelConnection> {
  const config = testAppConfig(home, baseURLs.join(','), { TSUKA_LLM_CONCURRENCY: '1' });
  const found = await findModelServer(config, { logger: silentLogger });
  if (!found) throw new Error('no server found');
  return connectModelServer(config, found, { logger: silentLogger, slots });
}

describe('several model servers', () => {
  it('runs two calls at once on different servers; a third waits first in the queue and takes the first free slot', async () => {
    const [a, b] = servers as [ScriptedModelServer, ScriptedModelServer];
    const connection = await connect([a.baseURL, b.baseURL]);
    expect(connection.servers).toEqual([a.baseURL, b.baseURL]);
    expect(connection.model.modelId).toBe(MODEL);
    const [holdA, holdB] = [gate(), gate()];
    a.enqueue({ text: 'one from A', holdUntil: holdA.promise });
    a.enqueue({ text: 'three from A' });
    b.enqueue({ text: 'two from B', holdUntil: holdB.promise });
    const signals = [new AbortController(), new AbortController(), new AbortController()].map((controller) => controller.signal);

    const first = text(connection.model, signals[0]!);
    const second = text(connection.model, signals[1]!);
    // Both servers hold a request at the same time: one each.
    await Promise.all([a.waitForRequests(1), b.waitForRequests(1)]);
    expect([await connection.inUse(a.baseURL), await connection.inUse(b.baseURL)]).toEqual([1, 1]);

    const third = text(connection.model, signals[2]!);
    await expect.poll(() => connection.model.position(signals[2]!)).toBe(1);
    expect(connection.model.position(signals[0]!)).toBeUndefined();
    expect(connection.model.waiting()).toBe(1);

    holdA.open();
    expect(await first).toBe('one from A');
    expect(await third).toBe('three from A');
    expect(connection.model.position(signals[2]!)).toBeUndefined();
    holdB.open();
    expect(await second).toBe('two from B');
    expect([a.requests.length, b.requests.length]).toEqual([2, 1]);
    expect(await connection.inUse(a.baseURL)).toBe(0);
  });

  it('skips a server that refuses or fails before its first token, retries the call on the other, and uses it again once a probe finds it', async () => {
    const [a, b] = servers as [ScriptedModelServer, ScriptedModelServer];
    const connection = await connect([a.baseURL, b.baseURL]);
    const health = connection.health!;
    const port = Number(new URL(b.baseURL).port);

    // B goes away while A is busy: the call is granted B, refused there, and retried on A.
    let busy = gate();
    a.enqueue({ text: 'long on A', holdUntil: busy.promise });
    a.enqueue({ text: 'retried on A' });
    const long = text(connection.model, new AbortController().signal);
    await a.waitForRequests(1);
    await b.close();
    const retried = text(connection.model, new AbortController().signal);
    await expect.poll(() => health.isUp(b.baseURL)).toBe(false);
    expect(health.states()[1]).toMatchObject({ server: b.baseURL, up: false, reason: expect.stringContaining('not reachable') });
    busy.open();
    expect(await long).toBe('long on A');
    expect(await retried).toBe('retried on A');

    // Back on the same port, answering 500 before any token: found by the probe, then skipped again.
    const restarted = await startScriptedModelServer({ modelId: MODEL, port });
    servers.push(restarted);
    await health.probeDown();
    expect(health.up()).toEqual([a.baseURL, b.baseURL]);
    restarted.enqueue({ status: 500 });
    busy = gate();
    a.enqueue({ text: 'long on A again', holdUntil: busy.promise });
    a.enqueue({ text: 'after the 500, on A' });
    const longAgain = text(connection.model, new AbortController().signal);
    await a.waitForRequests(3);
    const afterFailure = text(connection.model, new AbortController().signal);
    await restarted.waitForRequests(1);
    await expect.poll(() => health.isUp(b.baseURL)).toBe(false);
    expect(health.states()[1]?.reason).toMatch(/500/);
    busy.open();
    expect(await longAgain).toBe('long on A again');
    expect(await afterFailure).toBe('after the 500, on A');

    // The probe finds B answering again: the next call while A is busy runs on B.
    await health.probeDown();
    expect(health.isUp(b.baseURL)).toBe(true);
    busy = gate();
    a.enqueue({ text: 'busy A', holdUntil: busy.promise });
    restarted.enqueue({ text: 'B is back' });
    const holdingA = text(connection.model, new AbortController().signal);
    await a.waitForRequests(5);
    expect(await text(connection.model, new AbortController().signal)).toBe('B is back');
    busy.open();
    expect(await holdingA).toBe('busy A');
    expect(restarted.requests).toHaveLength(2);
  });

  it('one URL behaves as before: one server, one generation at a time, no failover', async () => {
    const [a] = servers as [ScriptedModelServer];
    const connection = await connect([a.baseURL]);
    expect(connection.servers).toEqual([a.baseURL]);
    expect(connection.health).toBeUndefined();
    const hold = gate();
    a.enqueue({ text: 'first', holdUntil: hold.promise });
    a.enqueue({ text: 'second' });
    const signal = new AbortController().signal;
    const first = text(connection.model, new AbortController().signal);
    await a.waitForRequests(1);
    const second = text(connection.model, signal);
    await expect.poll(() => connection.model.position(signal)).toBe(1);
    hold.open();
    expect([await first, await second]).toEqual(['first', 'second']);
  });
});
