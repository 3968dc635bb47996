import { describe, expect, it } from 'vitest';
import { createApprovalFlow } from '../../../src/commands/approvals/approval-flow.js';
import { openStore } from '../../../src/core/store/open-store.js';
import { createApprovalStore } from '../../../src/core/store/approval-store.js';
import { testApprovalSigner } from '../../support/approval-signer.js';
import { createRunStore } from '../../../src/core/store/run-store.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { PermissionRequest } from '../../../src/core/safety/permission-port.js';
import type { PostOptions } from '../../../src/commands/chat-surface.js';
import { createMemorySurface } from '../../support/memory-surface.js';
import { createLocalCoordination } from '../../../src/core/coordination/local-coordination.js';

async function setup(options: { timeoutMs: number; slowPostMs?: number; failPost?: boolean }) {
  const store = await openStore({ url: 'memory://', dataDirectory: '/tmp' });
  const approvals = createApprovalStore(store, { signer: testApprovalSigner });
  const runs = createRunStore(store);
  const run = await runs.create({ kind: 'ask', title: 't', startedBy: 'playground:alice', where: { platform: 'playground', channelId: 'c' } });
  const surface = createMemorySurface();
  const post = surface.post.bind(surface);
  surface.post = async (post_: PostOptions) => {
    if (options.failPost) throw new Error('platform down');
    if (options.slowPostMs) await new Promise((resolve) => setTimeout(resolve, options.slowPostMs));
    return post(post_);
  };
  const flow = createApprovalFlow({ approvals, runs, admins: [], timeoutMs: options.timeoutMs, logger: silentLogger });
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
  return { flow, surface, approvals, runs, run, request };
}

describe('approval flow edge cases', () => {
  it('expiring while the prompt is still being posted ends the wait and leaves no live buttons', async () => {
    const { flow, surface, request } = await setup({ timeoutMs: 30, slowPostMs: 120 });
    const prompt = flow.promptFor({ surface, thread: 't', requester: 'playground:alice' });
    expect((await prompt.ask(request, new AbortController().signal)).outcome).toBe('expired');
    expect(flow.pendingCount()).toBe(0);
    const [message] = surface.messages;
    expect(message!.buttons).toEqual([]);
    expect(message!.text).toMatch(/Expired/);
  });

  it('a prompt that cannot be posted is denied and leaves nothing pending', async () => {
    const { flow, surface, approvals, request } = await setup({ timeoutMs: 10_000, failPost: true });
    const prompt = flow.promptFor({ surface, thread: 't', requester: 'playground:alice' });
    await expect(prompt.ask(request, new AbortController().signal)).rejects.toThrow(/platform down/);
    expect(flow.pendingCount()).toBe(0);
    expect(await approvals.listPending()).toEqual([]);
  });

  it('a decision reaches the waiting call even when recording it fails', async () => {
    const { flow, surface, runs, request } = await setup({ timeoutMs: 10_000 });
    const append = runs.appendEvent.bind(runs);
    runs.appendEvent = async (runId, event) => {
      if (event.type === 'approval') throw new Error('store hiccup');
      return append(runId, event);
    };
    const controller = new AbortController();
    const answer = flow.promptFor({ surface, thread: 't', requester: 'playground:alice' }).ask(request, controller.signal);
    await surface.waitFor(() => surface.messages.some((message) => message.buttons.length > 0));
    controller.abort();
    expect((await answer).outcome).toBe('denied');
    expect(flow.pendingCount()).toBe(0);
  });

  it('records that an approval was requested before the prompt is shown', async () => {
    const { flow, surface, runs, run, request } = await setup({ timeoutMs: 30 });
    const prompt = flow.promptFor({ surface, thread: 't', requester: 'playground:alice' });
    expect((await prompt.ask(request, new AbortController().signal)).outcome).toBe('expired');
    const events = await runs.events(run.id);
    expect(events[0]).toMatchObject({ type: 'note', text: expect.stringMatching(/approval requested: write_file/) });
    expect(events.at(-1)).toMatchObject({ type: 'approval', outcome: 'expired' });
  });
});

describe('approval decided on another replica', () => {
  it('goes on only when the stored approval is settled: a forged message alone decides nothing', async () => {
    const { surface, approvals, runs, request } = await setup({ timeoutMs: 10_000 });
    // Two replicas on one bus: the asking one, and the one where the click lands.
    const bus = { ...createLocalCoordination(), shared: true };
    const flow = createApprovalFlow({ approvals, runs, admins: [], timeoutMs: 10_000, logger: silentLogger, coordination: bus });
    const other = createApprovalFlow({ approvals, runs, admins: [], timeoutMs: 10_000, logger: silentLogger, coordination: bus });
    const prompt = flow.promptFor({ surface, thread: 't', requester: 'playground:alice' });
    let decided: string | undefined;
    const asking = prompt.ask(request, new AbortController().signal).then((decision) => {
      // What the gate does (permission-manager.ts): confirms the approval for its call, then the card says so.
      decision.confirm?.(decision.outcome);
      decided = decision.outcome;
    });
    await expect.poll(() => surface.messages.length).toBe(1);
    const [pending] = await approvals.listPending();

    // Whoever can publish on the bus (a command that reached Redis) cannot approve by message alone.
    await bus.publish(`approval:${pending!.id}`, { status: 'approved', decidedBy: 'playground:mallory' });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(decided).toBeUndefined();
    expect((await approvals.get(pending!.id))?.status).toBe('pending');

    // A real click on the other replica: the stored record is settled, then the message goes out.
    const ephemerals: string[] = [];
    await other.handleButton(
      {
        type: 'button-action',
        id: 'click-1',
        platform: 'playground',
        channel: 'c',
        user: 'playground:alice',
        actionId: 'tsuka_approve',
        value: pending!.id,
        message: surface.messages[0]!.ref,
        replyEphemeral: async (text: string) => void ephemerals.push(text),
      } as never,
      surface,
    );
    await asking;
    await flow.drain();
    expect(decided).toBe('approved');
    expect(surface.messages[0]!.text).toMatch(/Approved by/);
  });
});
