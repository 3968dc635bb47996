/**
 * A parallel /goal step never waits silently behind another step's approval card (issue 40): the
 * run card names the call whose card is open and the one waiting behind it, moves the waiting one up
 * when the first is decided, and drops the line when nothing waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { APPROVE_ACTION } from '../../../../src/commands/approvals/approval-flow.js';
import { approvalWaitsLine } from '../../../../src/commands/workflows/approval-waits.js';
import { callTool, say } from '../../../../src/core/model/scripted-model.js';
import { createPermissionManager, type PermissionWait } from '../../../../src/core/safety/permission-manager.js';
import type { PermissionRequest } from '../../../../src/core/safety/permission-port.js';
import { startWorkflowHarness } from '../workflow-harness.js';
import { goalModelSteps, type GoalScript } from './goal-script.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const script = (): GoalScript => ({
  plan: [say('PARALLEL:\nAGENT: @geordi — Write a.txt\nAGENT: @data — Write b.txt\nEND PARALLEL\nEND')],
  'step:1': [callTool('write_file', { path: 'a.txt', content: 'a\n' }), say('Written.\nSTATUS: COMPLETED — a')],
  'step:2': [callTool('write_file', { path: 'b.txt', content: 'b\n' }), say('Written.\nSTATUS: COMPLETED — b')],
  'review:1': [say('VOTE: APPROVE — fine')],
  'review:2': [say('VOTE: APPROVE — fine')],
});

const request = (id: string, runId = 'run-1'): PermissionRequest => ({
  id,
  runId,
  toolCallId: id,
  toolName: 'write_file',
  riskLevel: 'RESTRICTED',
  reason: 'it writes',
  summary: `write_file ${id}`,
  details: [],
  agentName: id,
  allowForRun: true,
});

describe('who waits for which approval', () => {
  it('the permission manager says when a check waits behind another of its run, asks, and ends', async () => {
    const waits: string[] = [];
    const answers = new Map<string, (value: { outcome: 'approved' }) => void>();
    const manager = createPermissionManager({
      prompt: { ask: (asked) => new Promise((resolve) => answers.set(asked.id, resolve)) },
      onWait: ({ request: asked, state }: PermissionWait) => void waits.push(`${asked.id}:${state}`),
    });
    const settled = () => new Promise((resolve) => setImmediate(resolve));
    const signal = new AbortController().signal;
    const first = manager.check(request('geordi'), signal);
    const second = manager.check(request('data'), signal);
    const other = manager.check(request('worf', 'run-2'), signal);
    await settled();
    // data waits behind geordi (same run); worf's run has its own queue.
    expect(waits.sort()).toEqual(['data:queued', 'geordi:asking', 'worf:asking']);
    expect(answers.has('data')).toBe(false);
    waits.length = 0;
    answers.get('geordi')!({ outcome: 'approved' });
    await first;
    await settled();
    expect(waits).toEqual(['geordi:done', 'data:asking']);
    answers.get('data')!({ outcome: 'approved' });
    answers.get('worf')!({ outcome: 'approved' });
    await Promise.all([second, other]);
    expect(waits.slice(2).sort()).toEqual(['data:done', 'worf:done']);
  });

  it('words the line, and has none when nothing waits', () => {
    expect(approvalWaitsLine([])).toBeUndefined();
    expect(
      approvalWaitsLine([
        { agent: 'Geordi', tool: 'write_file', state: 'asking' },
        { agent: 'Data', tool: 'execute_command', state: 'queued' },
      ]),
    ).toBe("⏳ Geordi's `write_file` waits for a decision (its card is in the thread) · Data's `execute_command` waits behind it (one card at a time)");
  });

  it('a /goal run card names the open card and the step waiting behind it, then moves it up', async () => {
    harness = await startWorkflowHarness({ steps: goalModelSteps(script()) });
    const h = harness;
    const running = h.slash('goal', 'write both files');
    const runCard = () => h.surface.messages.find((message) => message.text.startsWith('🛰'));
    const liveCards = () => h.surface.messages.filter((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION));
    await h.surface.waitFor(() => /waits behind it/.test(runCard()?.text ?? ''));
    const both = runCard()!.text;
    expect(both).toMatch(/(Geordi|Data)'s `write_file` waits for a decision \(its card is in the thread\) · (Geordi|Data)'s `write_file` waits behind it/);
    expect(both).toContain('Geordi');
    expect(both).toContain('Data');
    // One card at a time: the waiting step has none yet.
    expect(liveCards()).toHaveLength(1);

    const first = liveCards()[0]!;
    await h.click(APPROVE_ACTION, first.buttons[0]!.value, first.ref);
    await h.surface.waitFor(() => liveCards().length === 1 && liveCards()[0]!.ref !== first.ref);
    await h.surface.waitFor(() => !/waits behind it/.test(runCard()?.text ?? '') && /waits for a decision/.test(runCard()?.text ?? ''));
    const second = liveCards()[0]!;
    await h.click(APPROVE_ACTION, second.buttons[0]!.value, second.ref);
    await running;
    expect(runCard()!.text).not.toMatch(/waits for a decision|waits behind/);
  });
});
