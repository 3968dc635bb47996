import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../../src/core/model/scripted-model.js';
import { STOP_ACTION } from '../../../src/commands/action-ids.js';
import { startWorkflowHarness } from './workflow-harness.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

describe('stopping a team run', () => {
  it('ends promptly from the run card Stop button, says so in the thread and stores the run as stopped', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let modelCalled: () => void = () => undefined;
    const called = new Promise<void>((resolve) => {
      modelCalled = resolve;
    });
    harness = await startWorkflowHarness({
      steps: [
        async () => {
          modelCalled();
          await gate;
          return say('too late\nSTATUS: COMPLETED');
        },
        say('never\nSTATUS: COMPLETED'),
      ],
    });
    harness.engine.roster.teams.set('rr_stop', {
      name: 'rr_stop',
      displayName: 'Stop test',
      description: 'x',
      mode: 'round-robin',
      members: ['geordi', 'worf'],
    });
    const running = harness.slash('team', 'rr_stop long task');
    await called;
    const card = harness.thread().find((message) => message.text.startsWith('🛰'))!;
    const stop = card.buttons.find((button) => button.actionId === STOP_ACTION)!;
    expect(stop).toBeDefined();
    await harness.click(STOP_ACTION, stop.value, card.ref);
    release();
    await running;
    expect(harness.model.requests).toHaveLength(1);
    expect(
      harness
        .thread()
        .filter((message) => message.identity)
        .map((message) => message.identity!.name),
    ).toEqual(['Geordi']);
    expect(harness.thread().find((message) => message.identity?.name === 'Geordi')!.text).toContain('⏹ Stopped.');
    expect(harness.thread().at(-1)!.text).toContain('⏹ Stopped by <@playground:alice>.');
    expect(card.text).toContain('stopped');
    expect(card.buttons).toEqual([]);
    const [run] = await harness.runs();
    expect(run!.status).toBe('stopped');
    expect(harness.layer.activeRuns.list()).toEqual([]);
  });

  it('refuses Stop from someone who is neither the requester nor an admin', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    harness = await startWorkflowHarness({
      steps: [
        async () => {
          await gate;
          return say('done\nSTATUS: COMPLETED');
        },
      ],
    });
    harness.engine.roster.teams.set('rr_one', { name: 'rr_one', displayName: 'One', description: 'x', mode: 'round-robin', members: ['geordi'], rounds: 1 });
    const running = harness.slash('team', 'rr_one task');
    await harness.surface.waitFor(() => harness!.thread().some((message) => message.identity?.name === 'Geordi'));
    const card = harness.thread().find((message) => message.text.startsWith('🛰'))!;
    await harness.click(STOP_ACTION, card.buttons[0]!.value, card.ref, 'playground:mallory');
    release();
    await running;
    const [run] = await harness.runs();
    expect(run!.status).toBe('completed');
  });
});
