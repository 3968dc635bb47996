/**
 * Issue 41 (Redis came back empty), the two moments its end-to-end scenario was timing-sensitive at:
 * Redis dropping just after the card is posted (before the card's reference is stored), and the
 * store's own connection coming back a moment after the one that found the Redis empty. Either way
 * the waiting run is told on its card, at once, that its record vanished.
 */
import { describe, expect, it } from 'vitest';
import { createApprovalFlow } from '../../../src/commands/approvals/approval-flow.js';
import { VANISHED_BANNER } from '../../../src/commands/approvals/approval-delivery.js';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';
import type { StoreHealth } from '../../../src/core/coordination/redis-store-marker.js';
import { StoreError } from '../../../src/core/errors.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { PermissionRequest } from '../../../src/core/safety/permission-port.js';
import { createApprovalStore } from '../../../src/core/store/approval-store.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';
import { createMemorySurface } from '../../support/memory-surface.js';

const offline = () =>
  new StoreError('The shared state (Redis) does not answer right now; try again in a moment.', { cause: new Error('The client is offline') });

async function setup() {
  const store = await openStore({ url: 'memory://', dataDirectory: '/tmp' });
  const approvals = createApprovalStore(store, { signer: testApprovalSigner });
  const runs = createRunStore(store);
  const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'playground:alice', where: { platform: 'playground', channelId: 'c' } });
  const surface = createMemorySurface();
  let emptied: (() => void) | undefined;
  const storeHealth: StoreHealth = {
    emptiedAt: () => undefined,
    describe: () => undefined,
    onEmptied(listener) {
      emptied = listener;
      return () => undefined;
    },
    persistence: async () => ({ kind: 'none' }),
  };
  const coordination = { ...createLocalCoordination(), storeHealth };
  const flow = createApprovalFlow({ approvals, runs, admins: [], timeoutMs: 3_600_000, logger: silentLogger, coordination });
  const request: PermissionRequest = {
    id: 'r:1',
    runId: run.id,
    toolCallId: 'c1',
    toolName: 'write_file',
    riskLevel: 'RESTRICTED',
    reason: 'writes',
    summary: 'write_file a.txt',
    details: [],
    agentName: 'geordi',
    allowForRun: true,
  };
  const prompt = flow.promptFor({ surface, thread: 't', requester: 'playground:alice' });
  return { flow, surface, approvals, request, prompt, cameBackEmpty: () => emptied!() };
}

describe('a pending approval when the Redis came back empty', () => {
  it('Redis dropping just after the card is posted leaves the wait on, and the vanished record ends it on the card', async () => {
    const { flow, surface, approvals, request, prompt, cameBackEmpty } = await setup();
    let refFailed!: () => void;
    const refTried = new Promise<void>((resolve) => (refFailed = resolve));
    approvals.setMessageRef = async () => {
      refFailed();
      throw offline();
    };
    const asking = prompt.ask(request, new AbortController().signal);
    await refTried;
    await surface.waitFor(() => surface.messages[0]?.buttons.length === 3);
    // Redis is back, empty: the record is gone.
    approvals.get = async () => undefined;
    cameBackEmpty();
    const decision = await asking;
    expect(decision).toMatchObject({ outcome: 'denied', note: expect.stringMatching(/record vanished/) });
    expect(surface.messages[0]!.text.split('\n')[0]).toBe(VANISHED_BANNER);
    expect(surface.messages[0]!.buttons).toEqual([]);
    expect(flow.pendingCount()).toBe(0);
  });

  it("reads a record again when the store's own connection is not back yet as the emptiness is found", async () => {
    const { surface, approvals, request, prompt, cameBackEmpty } = await setup();
    const asking = prompt.ask(request, new AbortController().signal);
    await surface.waitFor(() => surface.messages[0]?.buttons.length === 3);
    let reads = 0;
    approvals.get = async () => {
      reads++;
      // The first read finds the store's connection still offline; the next one finds the record gone.
      if (reads === 1) throw offline();
      return undefined;
    };
    cameBackEmpty();
    const decision = await asking;
    expect(decision).toMatchObject({ outcome: 'denied', note: expect.stringMatching(/record vanished/) });
    expect(reads).toBe(2);
    expect(surface.messages[0]!.text.split('\n')[0]).toBe(VANISHED_BANNER);
  });
});
