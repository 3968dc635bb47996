import { describe, expect, it } from 'vitest';
import { createApprovalStore } from '../../../src/core/store/approval-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { ownerProcessAlive, recoverAfterRestart, recoverDeadReplicas } from '../../../src/core/store/recover-after-restart.js';
import { createLocalCoordination, replicaHost } from '../../../src/core/coordination/local-coordination.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { useTempDirectories } from './support/temp-directory.js';

const tempDirectory = useTempDirectories();

describe('recoverAfterRestart', () => {
  it('expires pending approvals and interrupts running runs left by a stopped process', async () => {
    const directory = await tempDirectory();
    const before = await openStore({ dataDirectory: directory });
    const runsBefore = createRunStore(before);
    const run = await runsBefore.create({
      kind: 'ask',
      title: 'deploy',
      startedBy: 'discord:81234',
      where: { platform: 'discord', channelId: 'discord:G1/C1', threadId: 'discord:G1/C1/T9' },
    });
    await runsBefore.appendEvent(run.id, { type: 'tool-call', agent: 'geordi', tool: 'execute_command', summary: 'npm run deploy' });
    await createApprovalStore(before, { signer: testApprovalSigner }).create({
      id: 'ap-1',
      runId: run.id,
      toolCallId: 'tc-1',
      toolName: 'execute_command',
      riskLevel: 'RESTRICTED',
      summary: 'npm run deploy',
      requesterId: 'discord:81234',
      messageRef: 'discord:G1/C1/T9/M5',
      expiresAt: Date.now() + 600_000,
    });
    await before.close();

    const store = await openStore({ dataDirectory: directory });
    try {
      const runs = createRunStore(store);
      const approvals = createApprovalStore(store, { signer: testApprovalSigner });
      const report = await recoverAfterRestart({ runs, approvals });
      expect(report.interruptedRuns.map((record) => [record.id, record.where.threadId])).toEqual([[run.id, 'discord:G1/C1/T9']]);
      expect(report.expiredApprovals.map((record) => [record.id, record.messageRef, record.status])).toEqual([['ap-1', 'discord:G1/C1/T9/M5', 'expired']]);
      expect((await runs.get(run.id))?.status).toBe('interrupted');
      expect((await runs.events(run.id)).map((event) => event.type)).toEqual(['tool-call', 'approval', 'status']);
      expect(await recoverAfterRestart({ runs, approvals })).toEqual({ interruptedRuns: [], expiredApprovals: [] });
    } finally {
      await store.close();
    }
  });
});

describe('recoverDeadReplicas', () => {
  it('interrupts only the runs of replicas without a lease, once, and expires their approvals', async () => {
    const store = await openStore({ url: 'memory://', dataDirectory: '/nonexistent' });
    const coordination = createLocalCoordination();
    const where = { platform: 'slack', channelId: 'C1', threadId: 'slack:T/C1/1' };
    const dead = await createRunStore(store, { owner: 'host-1-dead' }).create({ kind: 'ask', title: 'left behind', startedBy: 'u', where });
    const live = await createRunStore(store, { owner: coordination.replicaId }).create({ kind: 'ask', title: 'mine', startedBy: 'u', where });
    const runs = createRunStore(store);
    const approvals = createApprovalStore(store, { signer: testApprovalSigner });
    for (const [id, runId] of [
      ['ap-dead', dead.id],
      ['ap-live', live.id],
    ] as const) {
      await approvals.create({ id, runId, toolCallId: 't', toolName: 'write_file', riskLevel: 'RESTRICTED', summary: 's', expiresAt: Date.now() + 60_000 });
    }

    const report = await recoverDeadReplicas({ runs, approvals, coordination });
    expect(report.interruptedRuns.map((run) => run.id)).toEqual([dead.id]);
    expect(report.expiredApprovals.map((approval) => approval.id)).toEqual(['ap-dead']);
    expect((await runs.get(live.id))?.status).toBe('running');
    expect((await approvals.get('ap-live'))?.status).toBe('pending');
    expect((await runs.events(dead.id)).map((event) => event.type)).toEqual(['status', 'approval']);
    // A second pass (or another replica) finds nothing left to do.
    expect((await recoverDeadReplicas({ runs, approvals, coordination })).interruptedRuns).toEqual([]);
    expect(await runs.runningOwners()).toEqual([{ runId: live.id, owner: coordination.replicaId }]);
    await store.close();
  });
});

describe('recoverAfterRestart beside a running `tsuka ask`', () => {
  it('keeps the run of a live process on this host and interrupts the ones of dead processes', async () => {
    const store = await openStore({ url: 'memory://', dataDirectory: '/nonexistent' });
    const where = { platform: 'cli', channelId: 'cli' };
    // The test runner's parent is alive and is not this process: it stands for `tsuka ask`.
    const askOwner = `${replicaHost()}-${process.ppid}-abc123`;
    const goneOwner = `${replicaHost()}-999999-abc123`;
    const asking = await createRunStore(store, { owner: askOwner }).create({ kind: 'ask', title: 'ask', startedBy: 'cli', where });
    const left = await createRunStore(store, { owner: goneOwner }).create({ kind: 'ask', title: 'left', startedBy: 'cli', where });
    const runs = createRunStore(store);
    const report = await recoverAfterRestart({
      runs,
      approvals: createApprovalStore(store, { signer: testApprovalSigner }),
      stillRunning: (owner) => ownerProcessAlive(owner, replicaHost(), process.pid),
    });
    expect(report.interruptedRuns.map((run) => run.id)).toEqual([left.id]);
    expect((await runs.get(asking.id))?.status).toBe('running');
    expect(ownerProcessAlive(`other-host-${process.ppid}-abc123`, replicaHost(), process.pid)).toBe(false);
    expect(ownerProcessAlive(`${replicaHost()}-${process.pid}-abc123`, replicaHost(), process.pid)).toBe(false);
    await store.close();
  });
});
