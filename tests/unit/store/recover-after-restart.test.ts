import { describe, expect, it } from 'vitest';
import { createApprovalStore } from '../../../src/core/store/approval-store.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { recoverAfterRestart } from '../../../src/core/store/recover-after-restart.js';
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
    await createApprovalStore(before).create({
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
      const approvals = createApprovalStore(store);
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
