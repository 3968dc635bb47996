import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { createPermissionManager, NO_PROMPT_NOTE } from '../../../src/core/safety/permission-manager.js';
import type { PermissionDecision, PermissionPrompt, PermissionRequest } from '../../../src/core/safety/permission-port.js';

let nextId = 0;
function request(overrides: Partial<PermissionRequest> = {}): PermissionRequest {
  nextId += 1;
  return {
    id: `req-${nextId}`,
    runId: 'run-1',
    toolCallId: `call-${nextId}`,
    toolName: 'write_file',
    riskLevel: 'RESTRICTED',
    reason: 'Writes a file.',
    summary: 'write_file notes.md',
    details: [],
    agentName: 'geordi',
    allowForRun: false,
    ...overrides,
  };
}

const live = (): AbortSignal => new AbortController().signal;

/** A prompt that answers every question the same way and records what it was asked. */
function answering(decision: PermissionDecision): PermissionPrompt & { asked: PermissionRequest[] } {
  const asked: PermissionRequest[] = [];
  return {
    asked,
    ask: async (req) => {
      asked.push(req);
      return decision;
    },
  };
}

/** A prompt whose answers the test hands out one by one. */
function manual(): PermissionPrompt & {
  asked: PermissionRequest[];
  answer(index: number, decision: PermissionDecision): void;
  waitForAsks(count: number): Promise<void>;
} {
  const asked: PermissionRequest[] = [];
  const resolvers: ((decision: PermissionDecision) => void)[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  return {
    asked,
    ask: (req) =>
      new Promise<PermissionDecision>((resolve) => {
        asked.push(req);
        resolvers.push(resolve);
        for (const waiter of waiters.filter((w) => asked.length >= w.count)) waiter.resolve();
      }),
    answer: (index, decision) => resolvers[index]?.(decision),
    waitForAsks: (count) => (asked.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
  };
}

describe('createPermissionManager', () => {
  it('denies when there is no prompt (design §6.12: fail closed)', async () => {
    const manager = createPermissionManager();
    expect(await manager.check(request(), live())).toEqual({ outcome: 'denied', note: NO_PROMPT_NOTE });
    expect(await manager.check(request({ riskLevel: 'DANGEROUS' }), live())).toMatchObject({ outcome: 'denied' });
  });

  it('passes the prompt its decision and offers "for this run" only for RESTRICTED', async () => {
    const prompt = answering({ outcome: 'approved', decidedBy: 'slack:U1' });
    const manager = createPermissionManager({ prompt });
    expect(await manager.check(request(), live())).toEqual({ outcome: 'approved', decidedBy: 'slack:U1' });
    await manager.check(request({ riskLevel: 'DANGEROUS', toolName: 'delete_file' }), live());
    expect(prompt.asked.map((asked) => asked.allowForRun)).toEqual([true, false]);
  });

  it('approve-for-run covers later RESTRICTED calls of the same tool in the same run without asking', async () => {
    const prompt = answering({ outcome: 'approved-for-run', decidedBy: 'slack:U1' });
    const manager = createPermissionManager({ prompt });
    expect((await manager.check(request(), live())).outcome).toBe('approved-for-run');
    expect(manager.approvedForRun('run-1')).toEqual(['write_file']);
    expect((await manager.check(request(), live())).outcome).toBe('approved');
    expect(prompt.asked).toHaveLength(1);
  });

  it('approve-for-run does not cover another tool, another run, or DANGEROUS calls (design §6.7)', async () => {
    const prompt = answering({ outcome: 'denied' });
    const manager = createPermissionManager({ prompt: answering({ outcome: 'approved-for-run' }) });
    await manager.check(request({ toolName: 'write_file' }), live());
    manager.setPrompt(prompt);
    expect((await manager.check(request({ toolName: 'edit_file' }), live())).outcome).toBe('denied');
    expect((await manager.check(request({ runId: 'run-2' }), live())).outcome).toBe('denied');
    expect((await manager.check(request({ riskLevel: 'DANGEROUS' }), live())).outcome).toBe('denied');
    expect(prompt.asked.map((asked) => [asked.runId, asked.toolName, asked.riskLevel])).toEqual([
      ['run-1', 'edit_file', 'RESTRICTED'],
      ['run-2', 'write_file', 'RESTRICTED'],
      ['run-1', 'write_file', 'DANGEROUS'],
    ]);
  });

  it('treats approved-for-run on a DANGEROUS call as a single approval and records nothing', async () => {
    const prompt = answering({ outcome: 'approved-for-run' });
    const manager = createPermissionManager({ prompt });
    const dangerous = request({ riskLevel: 'DANGEROUS', toolName: 'execute_command' });
    expect((await manager.check(dangerous, live())).outcome).toBe('approved');
    expect(manager.approvedForRun('run-1')).toEqual([]);
    await manager.check(request({ riskLevel: 'DANGEROUS', toolName: 'execute_command' }), live());
    expect(prompt.asked).toHaveLength(2);
  });

  it('clearRun forgets the run’s approvals', async () => {
    const prompt = answering({ outcome: 'approved-for-run' });
    const manager = createPermissionManager({ prompt });
    await manager.check(request(), live());
    manager.clearRun('run-1');
    expect(manager.approvedForRun('run-1')).toEqual([]);
    await manager.check(request(), live());
    expect(prompt.asked).toHaveLength(2);
  });

  it('denies (never approves) when the prompt throws or answers nonsense, and logs it', async () => {
    const logger = createMemoryLogger();
    const throwing: PermissionPrompt = { ask: async () => Promise.reject(new Error('Slack is down')) };
    const manager = createPermissionManager({ prompt: throwing, logger });
    expect((await manager.check(request(), live())).outcome).toBe('denied');
    manager.setPrompt({ ask: async () => ({ outcome: 'yes please' }) as unknown as PermissionDecision });
    expect((await manager.check(request(), live())).outcome).toBe('denied');
    expect(logger.entries.filter((entry) => entry.level === 'warn')).toHaveLength(2);
  });

  it('passes "expired" through as a denial with a note', async () => {
    const manager = createPermissionManager({ prompt: answering({ outcome: 'expired' }) });
    const decision = await manager.check(request(), live());
    expect(decision.outcome).toBe('expired');
    expect(decision.note).toMatch(/in time/);
  });

  it('denies when the signal aborts while the prompt is open', async () => {
    const prompt = manual();
    const manager = createPermissionManager({ prompt });
    const controller = new AbortController();
    const pending = manager.check(request(), controller.signal);
    await prompt.waitForAsks(1);
    controller.abort();
    expect((await pending).outcome).toBe('denied');
    prompt.answer(0, { outcome: 'approved' });
    expect(manager.approvedForRun('run-1')).toEqual([]);
  });

  it('denies an already aborted check without asking', async () => {
    const prompt = answering({ outcome: 'approved' });
    const manager = createPermissionManager({ prompt });
    const controller = new AbortController();
    controller.abort();
    expect((await manager.check(request(), controller.signal)).outcome).toBe('denied');
    expect(prompt.asked).toHaveLength(0);
  });

  it('asks one question at a time per run, in FIFO order, without holding up other runs', async () => {
    const prompt = manual();
    const manager = createPermissionManager({ prompt });
    const first = manager.check(request({ toolName: 'a' }), live());
    const second = manager.check(request({ toolName: 'b' }), live());
    const third = manager.check(request({ toolName: 'c' }), live());
    const otherRun = manager.check(request({ toolName: 'x', runId: 'run-2' }), live());
    await prompt.waitForAsks(2);
    expect(prompt.asked.map((asked) => asked.toolName)).toEqual(['a', 'x']);

    prompt.answer(1, { outcome: 'denied' });
    expect((await otherRun).outcome).toBe('denied');
    prompt.answer(0, { outcome: 'approved' });
    expect((await first).outcome).toBe('approved');
    await prompt.waitForAsks(3);
    expect(prompt.asked.map((asked) => asked.toolName)).toEqual(['a', 'x', 'b']);
    prompt.answer(2, { outcome: 'denied' });
    expect((await second).outcome).toBe('denied');
    await prompt.waitForAsks(4);
    expect(prompt.asked[3]?.toolName).toBe('c');
    prompt.answer(3, { outcome: 'approved' });
    expect((await third).outcome).toBe('approved');
  });

  it('does not ask a queued call again once an earlier answer approved its tool for the run', async () => {
    const prompt = manual();
    const manager = createPermissionManager({ prompt });
    const first = manager.check(request(), live());
    const second = manager.check(request(), live());
    await prompt.waitForAsks(1);
    prompt.answer(0, { outcome: 'approved-for-run' });
    expect((await first).outcome).toBe('approved-for-run');
    expect((await second).outcome).toBe('approved');
    expect(prompt.asked).toHaveLength(1);
  });

  it('a queued call aborted while waiting is denied and does not block the queue', async () => {
    const prompt = manual();
    const manager = createPermissionManager({ prompt });
    const controller = new AbortController();
    const first = manager.check(request({ toolName: 'a' }), live());
    const waiting = manager.check(request({ toolName: 'b' }), controller.signal);
    const last = manager.check(request({ toolName: 'c' }), live());
    await prompt.waitForAsks(1);
    controller.abort();
    expect((await waiting).outcome).toBe('denied');
    prompt.answer(0, { outcome: 'approved' });
    await first;
    await prompt.waitForAsks(2);
    expect(prompt.asked.map((asked) => asked.toolName)).toEqual(['a', 'c']);
    prompt.answer(1, { outcome: 'approved' });
    expect((await last).outcome).toBe('approved');
  });
});
