/**
 * Issue 35: "the card said Approved but the tool never ran". A decided approval and what the gate
 * lets through must agree even when the decision lands exactly as Stop is pressed: the card says
 * "Approved" only for a call the gate let go on.
 */
import { describe, expect, it } from 'vitest';
import { APPROVE_ACTION, createApprovalFlow } from '../../../src/commands/approvals/approval-flow.js';
import type { ButtonActionEvent } from '../../../src/commands/inbound-event.js';
import { silentLogger } from '../../../src/core/logger.js';
import { createPermissionManager } from '../../../src/core/safety/permission-manager.js';
import type { PermissionRequest } from '../../../src/core/safety/permission-port.js';
import { createApprovalStore } from '../../../src/core/store/approval-store.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';
import { createMemorySurface } from '../../support/memory-surface.js';

async function setup(timeoutMs = 60_000) {
  const store = await openStore({ url: 'memory://', dataDirectory: '/tmp' });
  const approvals = createApprovalStore(store, { signer: testApprovalSigner });
  const runs = createRunStore(store);
  const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'playground:alice', where: { platform: 'playground', channelId: 'c' } });
  const surface = createMemorySurface();
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
    arguments: { path: 'a.txt', content: 'x' },
  };
  const click = (value: string): ButtonActionEvent =>
    ({
      type: 'button-action',
      id: `click-${value}`,
      platform: 'playground',
      channel: 'c',
      user: 'playground:alice',
      actionId: APPROVE_ACTION,
      value,
      message: surface.messages[0]!.ref,
      replyEphemeral: async () => undefined,
    }) as never;
  return { approvals, runs, surface, request, click, timeoutMs };
}

describe('a decision that lands as the run stops', () => {
  it('Stop pressed the moment the approval is stored: the gate denies, and the card says the call did not run', async () => {
    const { approvals, runs, surface, request, click } = await setup();
    const controller = new AbortController();
    // Stop is pressed right after the click's decision is stored, before anything else happens.
    const settle = approvals.settle.bind(approvals);
    approvals.settle = async (id, decision) => {
      const result = await settle(id, decision);
      if (decision.status === 'approved') controller.abort();
      return result;
    };
    const flow = createApprovalFlow({ approvals, runs, admins: [], timeoutMs: 60_000, logger: silentLogger });
    const gate = createPermissionManager({ prompt: flow.promptFor({ surface, thread: 't', requester: 'playground:alice' }) });
    const checking = gate.check(request, controller.signal);
    await surface.waitFor(() => surface.messages[0]?.buttons.length === 3);
    await flow.handleButton(click(surface.messages[0]!.buttons[0]!.value), surface);
    const decision = await checking;
    await flow.drain();
    expect(decision.outcome).toBe('denied');
    const banner = surface.messages[0]!.text.split('\n')[0]!;
    // Never a bare "Approved by" for a call the gate did not let through.
    expect(banner).toMatch(/not run: the run was stopped first/);
    expect(surface.messages[0]!.buttons).toEqual([]);
  });
});
