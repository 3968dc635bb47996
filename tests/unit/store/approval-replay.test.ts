/** Issue 41: a stored approval decides one call, once — never a second identical call, never twice. */
import { describe, expect, it } from 'vitest';
import { callFingerprint } from '../../../src/core/safety/call-fingerprint.js';
import { type ApprovalRecord, createApprovalStore } from '../../../src/core/store/approval-store.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';

const call = { toolName: 'delete_file', arguments: { path: 'a.txt' }, riskLevel: 'DANGEROUS', reason: 'deletes', approvers: 'other', requesterId: 'u:alice' };

describe('an approval record is used once, for its own call', () => {
  it('replayed for a second identical call (copied under its key) it is refused; used twice it is refused', async () => {
    const store = await openStore({ url: 'memory://', dataDirectory: '/tmp' });
    const approvals = createApprovalStore(store, { signer: testApprovalSigner });
    const fingerprint = callFingerprint(call);
    const pending = (id: string, toolCallId: string) =>
      approvals.create({
        id,
        runId: 'run1',
        toolCallId,
        fingerprint,
        toolName: 'delete_file',
        riskLevel: 'DANGEROUS',
        summary: 'delete a.txt',
        expiresAt: Date.now() + 60_000,
      });
    await pending('first', 'c1');
    await pending('second', 'c2');
    await approvals.settle('first', { status: 'approved', decidedBy: 'u:bob' });
    const expectFirst = { id: 'first', runId: 'run1', toolCallId: 'c1', fingerprint };
    expect((await approvals.consume('first', expectFirst)).ok).toBe(true);
    expect(await approvals.consume('first', expectFirst)).toEqual({ ok: false, problem: 'used' });

    // The attacker replays the used approval for the identical second call.
    const raw = store.namespace<ApprovalRecord>('approvals');
    await raw.set('second', (await raw.get('first'))!);
    expect(await approvals.consume('second', { id: 'second', runId: 'run1', toolCallId: 'c2', fingerprint })).toEqual({ ok: false, problem: 'key' });
    expect((await approvals.get('second'))?.tampered).toBe(true);
    // Another call's fingerprint (other arguments) never matches.
    expect(callFingerprint({ ...call, arguments: { path: 'b.txt' } })).not.toBe(fingerprint);
    expect(callFingerprint({ ...call, arguments: { path: 'a.txt' } })).toBe(fingerprint);
    await store.close();
  });
});
