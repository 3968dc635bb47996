/** Every approval decision — a click to approve, a click to deny, a timeout — lands in the audit log with who, what, when and where. */
import { testApprovalSigner } from '../../support/approval-signer.js';
import { describe, expect, it } from 'vitest';
import { createApprovalFlow } from '../../../src/commands/approvals/approval-flow.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { createApprovalStore } from '../../../src/core/store/approval-store.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { createStoreAuditLog } from '../../../src/core/audit/store-audit-log.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { PermissionRequest } from '../../../src/core/safety/permission-port.js';
import type { ButtonActionEvent } from '../../../src/commands/inbound-event.js';
import { createMemorySurface } from '../../support/memory-surface.js';

const where = { platform: 'playground', channelId: 'playground:ops', threadId: 'playground:ops/m1' };

async function setup(timeoutMs = 10_000) {
  const store = await openStore({ url: 'memory://', dataDirectory: '/tmp' });
  const approvals = createApprovalStore(store, { signer: testApprovalSigner });
  const runs = createRunStore(store);
  const audit = createStoreAuditLog(store);
  const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'playground:alice', where });
  const surface = createMemorySurface();
  const flow = createApprovalFlow({ approvals, runs, admins: ['playground:root'], timeoutMs, logger: silentLogger, audit });
  const request: PermissionRequest = {
    id: 'r:1',
    runId: run.id,
    toolCallId: 'c1',
    toolName: 'execute_command',
    riskLevel: 'DANGEROUS',
    reason: 'deletes files',
    summary: 'rm -rf build',
    details: [],
    agentName: 'geordi',
    allowForRun: false,
  };
  const click = async (actionId: string, user: string) => {
    const [pending] = await approvals.listPending();
    const event: ButtonActionEvent = {
      type: 'button-action',
      id: `click-${actionId}-${user}`,
      platform: 'playground',
      channel: 'playground:ops',
      user,
      fromBot: false,
      actionId,
      value: pending!.id,
      message: surface.messages[0]!.ref,
      replyEphemeral: async () => undefined,
    };
    await flow.handleButton(event, surface);
  };
  return { flow, surface, audit, run, request, click, store };
}

describe('approval decisions in the audit log', () => {
  it('records an approval and a denial with who decided, the tool, the run and its channel', async () => {
    const { flow, surface, audit, run, request, click, store } = await setup();
    const prompt = flow.promptFor({ surface, thread: 'playground:ops/m1', requester: 'playground:alice' });
    const first = prompt.ask(request, new AbortController().signal);
    await surface.waitFor(() => surface.messages.some((message) => message.buttons.length > 0));
    await click('tsuka_approve', 'playground:root');
    expect((await first).outcome).toBe('approved');
    const second = prompt.ask({ ...request, toolCallId: 'c2', summary: 'git push --force' }, new AbortController().signal);
    await surface.waitFor(() => surface.messages.filter((message) => message.buttons.length > 0).length > 0 && surface.messages.length === 2);
    await click('tsuka_deny', 'playground:alice');
    expect((await second).outcome).toBe('denied');
    const entries = await audit.list();
    expect(entries).toEqual([
      expect.objectContaining({
        type: 'approval',
        decision: 'approved',
        actor: 'playground:root',
        tool: 'execute_command',
        riskLevel: 'DANGEROUS',
        summary: 'rm -rf build',
        runId: run.id,
        requester: 'playground:alice',
        where,
      }),
      expect.objectContaining({ type: 'approval', decision: 'denied', actor: 'playground:alice', summary: 'git push --force', runId: run.id, where }),
    ]);
    expect(entries.every((entry) => typeof entry.at === 'number')).toBe(true);
    await store.close();
  });

  it('records a timeout as expired, decided by nobody', async () => {
    const { flow, surface, audit, request, store } = await setup(30);
    expect(
      (await flow.promptFor({ surface, thread: 'playground:ops/m1', requester: 'playground:alice' }).ask(request, new AbortController().signal)).outcome,
    ).toBe('expired');
    await flow.drain();
    const [entry] = await audit.list();
    expect(entry).toMatchObject({ type: 'approval', decision: 'expired', tool: 'execute_command' });
    expect(entry).not.toHaveProperty('actor');
    await store.close();
  });
});
