/** Where the approval signing key comes from, and that a signature covers every decisive field. */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APPROVAL_KEY_FILE_NAME, loadApprovalKey } from '../../../src/core/store/approval-key.js';
import { createApprovalSigner } from '../../../src/core/store/approval-signature.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'tsuka-approval-key-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('the approval signing key', () => {
  it('is made once per data folder, private (0600), and read again by the next process', async () => {
    const dataDirectory = path.join(directory, 'data');
    const [first, second] = await Promise.all([loadApprovalKey({ dataDirectory }), loadApprovalKey({ dataDirectory })]);
    expect(first.source).toBe('key-file');
    expect(first.key.equals(second.key)).toBe(true);
    expect((await loadApprovalKey({ dataDirectory })).key.equals(first.key)).toBe(true);
    const file = path.join(dataDirectory, APPROVAL_KEY_FILE_NAME);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).length).toBeGreaterThanOrEqual(43);
  });

  it('replicas on one Redis derive the same key from its password; TSUKA_APPROVAL_KEY wins over both', async () => {
    const a = await loadApprovalKey({ storeUrl: 'redis://:pa%40ss@redis-a:6379', dataDirectory: path.join(directory, 'a') });
    const b = await loadApprovalKey({ storeUrl: 'redis://:pa%40ss@redis-a:6379/0', dataDirectory: path.join(directory, 'b') });
    expect(a.source).toBe('redis-password');
    expect(a.key.equals(b.key)).toBe(true);
    expect(a.key.toString('utf8')).not.toContain('pa@ss');
    const set = await loadApprovalKey({ approvalKey: 'x'.repeat(40), storeUrl: 'redis://:pa%40ss@redis-a:6379', dataDirectory: directory });
    expect(set.source).toBe('TSUKA_APPROVAL_KEY');
    expect(set.key.equals(a.key)).toBe(false);
  });
});

describe('an approval signature', () => {
  const signer = createApprovalSigner(Buffer.alloc(32, 3));
  const record = {
    id: 'a1',
    runId: 'r1',
    toolCallId: 'c1',
    toolName: 'delete_file',
    riskLevel: 'DANGEROUS',
    summary: 'delete_file x',
    requesterId: 'slack:U1',
    approvers: 'other',
    messageRef: 'm1',
    createdAt: 1,
    expiresAt: 2,
    status: 'approved',
    decidedBy: 'slack:U1',
    decidedAt: 2,
  };

  it('verifies the record it was made for, and nothing else', () => {
    const signed = { ...record, signature: signer.sign(record) };
    expect(signer.verify(signed)).toBe(true);
    for (const [field, value] of Object.entries({
      id: 'a2',
      runId: 'r2',
      toolCallId: 'c2',
      status: 'denied',
      decidedBy: 'slack:U2',
      decidedAt: 3,
      requesterId: undefined,
      messageRef: 'm2',
      summary: 'y',
      expiresAt: 9,
      // Rewriting who may decide (so the requester could approve their own DANGEROUS call) breaks it too.
      approvers: 'requester',
    }))
      expect(signer.verify({ ...signed, [field]: value }), field).toBe(false);
    expect(createApprovalSigner(Buffer.alloc(32, 4)).verify(signed)).toBe(false);
    expect(signer.verify({ ...record })).toBe(false);
    expect(signer.verify({ ...record, signature: 'v1.' })).toBe(false);
  });
});
