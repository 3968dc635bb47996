import { describe, expect, it } from 'vitest';
import { createApprovalStore, type NewApproval } from '../../../src/core/store/approval-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { useTempDirectories } from './support/temp-directory.js';

const tempDirectory = useTempDirectories();

const pending = (id: string, expiresAt = 10_000): NewApproval => ({
  id,
  runId: 'run-1',
  toolCallId: `call-${id}`,
  toolName: 'write_file',
  riskLevel: 'RESTRICTED',
  summary: 'write_file notes.md',
  requesterId: 'slack:U1',
  expiresAt,
});

async function memoryApprovals(now: () => number) {
  return createApprovalStore(await openStore({ url: 'memory', dataDirectory: '/unused' }), { signer: testApprovalSigner, now });
}

describe('approval store', () => {
  it('settles once; the second click reports already decided with the first decision', async () => {
    const approvals = await memoryApprovals(() => 500);
    await approvals.create(pending('a1'));
    await approvals.setMessageRef('a1', 'slack:T1/C1/9.9');
    const first = await approvals.settle('a1', { status: 'approved', decidedBy: 'slack:U1' });
    expect(first).toMatchObject({ ok: true, record: { status: 'approved', decidedBy: 'slack:U1', decidedAt: 500, messageRef: 'slack:T1/C1/9.9' } });
    const second = await approvals.settle('a1', { status: 'denied', decidedBy: 'slack:U2' });
    expect(second).toMatchObject({ ok: false, reason: 'already-decided', record: { status: 'approved', decidedBy: 'slack:U1' } });
    expect(await approvals.settle('nope', { status: 'approved' })).toEqual({ ok: false, reason: 'unknown' });
  });

  it('lets exactly one of many simultaneous clicks win', async () => {
    const approvals = await memoryApprovals(() => 500);
    await approvals.create(pending('race'));
    const results = await Promise.all(
      ['approved', 'denied', 'approved-for-run', 'denied'].map((status, index) =>
        approvals.settle('race', { status: status as 'approved', decidedBy: `slack:U${index}` }),
      ),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok && result.reason === 'already-decided')).toHaveLength(3);
  });

  it('never approves after the expiry time', async () => {
    const approvals = await memoryApprovals(() => 20_000);
    await approvals.create(pending('late', 10_000));
    const result = await approvals.settle('late', { status: 'approved', decidedBy: 'slack:U1' });
    expect(result).toMatchObject({ ok: false, reason: 'already-decided', record: { status: 'expired' } });
    expect((await approvals.get('late'))?.status).toBe('expired');
  });

  it('finds a pending prompt after a restart and expires all pending ones', async () => {
    const directory = await tempDirectory();
    const before = await openStore({ dataDirectory: directory });
    const approvalsBefore = createApprovalStore(before, { signer: testApprovalSigner, now: () => 100 });
    await approvalsBefore.create(pending('p1'));
    await approvalsBefore.create(pending('p2'));
    await approvalsBefore.create(pending('done'));
    await approvalsBefore.settle('done', { status: 'denied', decidedBy: 'slack:U1' });
    await before.close();

    const store = await openStore({ dataDirectory: directory });
    try {
      const approvals = createApprovalStore(store, { signer: testApprovalSigner, now: () => 200 });
      expect((await approvals.listPending()).map((record) => record.id)).toEqual(['p1', 'p2']);
      const expired = await approvals.expireAllPending();
      expect(expired.map((record) => [record.id, record.status])).toEqual([
        ['p1', 'expired'],
        ['p2', 'expired'],
      ]);
      expect(await approvals.listPending()).toEqual([]);
      expect((await approvals.get('done'))?.status).toBe('denied');
    } finally {
      await store.close();
    }
  });
});
