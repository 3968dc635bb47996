/**
 * Attack: something that can write the store but does not hold the bot's key — a sandboxed command
 * that reached a Redis, a process that opened the SQLite file — rewrites a pending approval as
 * "approved by mallory" and publishes the decision. The waiting run must not go on, and no banner
 * made of the forger's words may be posted: the record's signature does not verify, so it is denied.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APPROVE_ACTION, createApprovalFlow } from '../../../src/commands/approvals/approval-flow.js';
import type { Coordination } from '../../../src/core/coordination/coordination.js';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';
import { openRedisCoordination } from '../../../src/core/coordination/redis-coordination.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { PermissionRequest } from '../../../src/core/safety/permission-port.js';
import { type ApprovalRecord, createApprovalStore } from '../../../src/core/store/approval-store.js';
import { openStore, type Store } from '../../../src/core/store/open-store.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';
import { createMemorySurface } from '../../support/memory-surface.js';
import { startRedisServer } from '../../support/redis-server.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const request = (runId: string): PermissionRequest => ({
  id: 'r:1',
  runId,
  toolCallId: 'c1',
  toolName: 'delete_file',
  riskLevel: 'DANGEROUS',
  reason: 'deletes a file',
  summary: 'delete_file important.txt',
  details: [],
  agentName: 'geordi',
  allowForRun: false,
});

/** A run waiting on an approval, on `store`, with `coordination` as the replicas' bus. */
async function waitingRun(store: Store, coordination: Coordination, timeoutMs = 60_000) {
  const errors: { message: string; fields?: Record<string, unknown> }[] = [];
  const logger = { ...silentLogger, error: (message: string, fields?: Record<string, unknown>) => void errors.push({ message, fields }) };
  const approvals = createApprovalStore(store, { signer: testApprovalSigner, logger: logger as never });
  const runs = createRunStore(store);
  const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'playground:alice', where: { platform: 'playground', channelId: 'c' } });
  const surface = createMemorySurface();
  const flow = createApprovalFlow({ approvals, runs, admins: [], timeoutMs, logger: silentLogger, coordination });
  const prompt = flow.promptFor({ surface, thread: 't', requester: 'playground:alice' });
  const asking = prompt.ask(request(run.id), new AbortController().signal);
  await surface.waitFor(() => surface.messages.length === 1);
  const [pending] = await approvals.listPending();
  // The prompt is recorded (with its message) before the attacker looks.
  await expect.poll(async () => (await approvals.get(pending!.id))?.messageRef).toBeDefined();
  return { flow, surface, approvals, asking, id: pending!.id, errors };
}

/** What the forger writes: the record as stored, now "approved by mallory" (the old signature kept or dropped). */
const forge = (stored: ApprovalRecord): ApprovalRecord => ({ ...stored, status: 'approved', decidedBy: 'playground:mallory', decidedAt: stored.createdAt + 1 });

function expectNoForgedBanner(surface: ReturnType<typeof createMemorySurface>): void {
  const text = surface.messages[0]!.text;
  expect(text).not.toMatch(/Approved/);
  expect(text).not.toContain('mallory');
  expect(text).toMatch(/^⛔ Denied — the stored approval was changed outside TSUKA/);
  expect(surface.messages[0]!.buttons).toEqual([]);
}

describe('a stored approval forged in SQLite', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-forged-approval-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  async function openBoth() {
    const dataDirectory = path.join(home, String(closers.length));
    const store = await openStore({ dataDirectory });
    // The forger: another connection to the same database file, without the bot's key.
    const forger = await openStore({ dataDirectory });
    closers.push(
      () => store.close(),
      () => forger.close(),
    );
    return { store, forger: forger.namespace<ApprovalRecord>('approvals') };
  }

  it('forged as approved and published: the run is denied and no forged banner is shown', async () => {
    const { store, forger } = await openBoth();
    const bus = { ...createLocalCoordination(), shared: true };
    const { surface, asking, id, errors } = await waitingRun(store, bus);
    await forger.set(id, forge((await forger.get(id))!));
    await bus.publish(`approval:${id}`, { status: 'approved', decidedBy: 'playground:mallory', banner: '✅ Approved by @mallory — all good' });
    const decision = await asking;
    expect(decision.outcome).toBe('denied');
    expect(decision.decidedBy).toBeUndefined();
    expectNoForgedBanner(surface);
    expect(errors.map((error) => error.message)).toContainEqual(expect.stringMatching(/failed its signature check/));
  });

  it('forged as approved (signature dropped) on one process, with no message: neither a click nor the expiry lets it through', async () => {
    const { store, forger } = await openBoth();
    // Before signatures, the expiry found the record "already decided: approved" and let the run go on.
    const { flow, surface, asking, id } = await waitingRun(store, createLocalCoordination(), 2_000);
    const { signature: _signature, ...unsigned } = (await forger.get(id))!;
    await forger.set(id, forge(unsigned));
    const ephemerals: string[] = [];
    const click = (actionId: string, user: string) =>
      flow.handleButton(
        {
          type: 'button-action',
          id: `click-${actionId}-${user}`,
          platform: 'playground',
          channel: 'c',
          user,
          actionId,
          value: id,
          message: surface.messages[0]!.ref,
          replyEphemeral: async (text: string) => void ephemerals.push(text),
        } as never,
        surface,
      );
    await click(APPROVE_ACTION, 'playground:mallory');
    const decision = await asking;
    expect(ephemerals.at(-1)).toMatch(/changed outside TSUKA/);
    expect(decision.outcome).toBe('denied');
    expectNoForgedBanner(surface);
  });

  it('a forged pending record is never listed (recovery would edit the message it names)', async () => {
    const { store, forger } = await openBoth();
    const approvals = createApprovalStore(store, { signer: testApprovalSigner });
    await forger.set('planted', {
      id: 'planted',
      runId: 'r',
      toolCallId: 'c',
      toolName: 'execute_command',
      riskLevel: 'DANGEROUS',
      summary: 'x',
      messageRef: 'someone-elses-message',
      createdAt: 1,
      expiresAt: Date.now() + 60_000,
      status: 'pending',
    });
    expect(await approvals.listPending()).toEqual([]);
    expect(await approvals.expireAllPending()).toEqual([]);
    expect((await approvals.get('planted'))?.status).toBe('denied');
  });
});

describe('a stored approval forged in Redis', () => {
  it('rewritten and published by a client that reached Redis: the run is denied, no forged banner', async () => {
    const redis = await startRedisServer();
    closers.push(() => redis.stop());
    const coordination = await openRedisCoordination({ url: redis.url });
    const store = await openStore({ url: redis.url, dataDirectory: '/nonexistent', mutex: coordination.mutex });
    closers.push(
      () => coordination.close(),
      () => store.close(),
    );
    const { surface, asking, id } = await waitingRun(store, coordination);

    // The attacker: a plain Redis client (it learnt the address and password somehow), no key.
    const attacker = createClient({ url: redis.url });
    await attacker.connect();
    closers.push(() => attacker.close());
    const [valueKey] = await attacker.keys(`tsuka:kv:*${id}`);
    const stored = JSON.parse((await attacker.get(valueKey!))!) as { value: ApprovalRecord | string };
    const record = typeof stored.value === 'string' ? (JSON.parse(stored.value) as ApprovalRecord) : stored.value;
    const forged = forge(record);
    await attacker.set(valueKey!, JSON.stringify({ ...stored, value: typeof stored.value === 'string' ? JSON.stringify(forged) : forged }));
    await attacker.publish(
      `tsuka:topic:approval:${id}`,
      JSON.stringify({ status: 'approved', decidedBy: 'playground:mallory', banner: '✅ Approved by @mallory' }),
    );

    const decision = await asking;
    expect(decision.outcome).toBe('denied');
    expectNoForgedBanner(surface);
  });
});
