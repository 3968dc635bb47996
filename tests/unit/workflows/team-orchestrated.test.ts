import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { APPROVE_ACTION } from '../../../src/commands/approvals/approval-flow.js';
import { systemOf } from '../../support/scripted-callers.js';
import { startWorkflowHarness } from './workflow-harness.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const speakers = (h: Harness) =>
  h
    .thread()
    .filter((message) => message.identity)
    .map((message) => message.identity!.name);

describe('/team orchestrated', () => {
  it('routes with route_next, falls back visibly on an unusable NEXT:, reads STATUS: as degraded protocol, ends on END', async () => {
    harness = await startWorkflowHarness({
      steps: [
        callTool('route_next', { agent: 'worf', reason: 'audit first' }),
        say('Worf, audit please.'),
        callTool('report_status', { status: 'COMPLETED', summary: 'no secrets found' }),
        say('Audit done.'),
        say('NEXT: @worf — once more'),
        say('Implemented the limiter.\n**STATUS: COMPLETED** — limiter added'),
        callTool('route_next', { agent: 'END', reason: 'all done' }),
        say('Closing.'),
      ],
    });
    const replies = await harness.slash('team', 'dev_security "Add rate limiting to login"');
    expect(replies).toEqual([]);
    const root = harness.surface.messages[0]!;
    expect(root.text).toContain('Dev & Security');
    expect(root.text).toContain('orchestrated');
    expect(root.text).toContain('Members: Geordi, Worf, Pike');
    expect(root.text).toContain('Add rate limiting to login');
    expect(speakers(harness)).toEqual(['Pike', 'Worf', 'Pike', 'Geordi', 'Pike']);
    const texts = harness.thread().map((message) => message.text);
    const worfTurn = harness.thread().find((message) => message.identity?.name === 'Worf')!;
    expect(worfTurn.text).toContain('✅ completed — no secrets found');
    expect(
      texts.some((text) => text.includes("↪ Pike's choice was not usable (Worf already spoke this round) — falling back to the next worker: Geordi.")),
    ).toBe(true);
    const geordiTurn = harness.thread().find((message) => message.identity?.name === 'Geordi')!;
    expect(geordiTurn.text).toContain('✅ completed — limiter added');
    expect(geordiTurn.text).toContain('⚠️ degraded protocol: status read from a STATUS: line');
    expect(texts.at(-1)).toContain('✅ Team run completed.');
    expect(texts.at(-1)).toContain('Pike ended the run: all done');
    // The same column names as /goal and /call (one set everywhere).
    expect(texts.at(-1)).toMatch(/agent\s+output tokens\s+peak context\s+total tokens\s+time\s+tokens\/s/);
    // Pike was offered route_next; workers were offered report_status.
    expect(harness.model.requests[0]!.tools?.map((tool) => tool.name)).toContain('route_next');
    expect(systemOf(harness.model.requests[2]!)).toContain('Worf');
    expect(harness.model.requests[2]!.tools?.map((tool) => tool.name)).toContain('report_status');
    const [run] = await harness.runs();
    expect(run).toMatchObject({ kind: 'team', status: 'completed' });
    const events = await harness.engine.runs.events(run!.id);
    expect(events.some((event) => event.type === 'note' && event.text.includes('degraded protocol'))).toBe(true);
    expect(events.some((event) => event.type === 'tool-call' && event.tool === 'route_next')).toBe(true);
  });

  it('asks for approval in the thread when a member runs a RESTRICTED command', async () => {
    harness = await startWorkflowHarness({
      steps: [
        say('NEXT: @geordi — build it'),
        callTool('execute_command', { command: 'mkdir build' }),
        say('Built.\nSTATUS: COMPLETED — build folder made'),
        say('NEXT: END'),
      ],
    });
    const running = harness.slash('team', 'dev_security make a build folder');
    await harness.surface.waitFor(() => harness!.thread().some((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION)));
    const prompt = harness.thread().find((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION))!;
    expect(prompt.text).toContain('mkdir build');
    await harness.click(APPROVE_ACTION, prompt.buttons.find((button) => button.actionId === APPROVE_ACTION)!.value, prompt.ref);
    await running;
    expect(prompt.text).toContain('✅ Approved by');
    // Geordi's reply ends above the card it asked for; what the command did comes below it (issue 24).
    const thread = harness.thread();
    const geordi = thread.filter((message) => message.identity?.name === 'Geordi');
    expect(geordi.map((message) => thread.indexOf(message) < thread.indexOf(prompt))).toEqual([true, false]);
    expect(geordi[0]!.text).toContain('🔐 execute_command mkdir build — asks for approval');
    expect(geordi[1]!.text).toContain('🔧 execute_command mkdir build');
    expect(harness.thread().at(-1)!.text).toContain('✅ Team run completed.');
  });

  it('lists the teams for /team alone and keeps the task out of the team name (§6.2)', async () => {
    harness = await startWorkflowHarness();
    const [list] = await harness.slash('team', '');
    expect(list).toContain('dev_security');
    expect(list).toContain('qa_pipeline');
    const [unknown] = await harness.slash('team', 'dev_securty fix it');
    expect(unknown).toContain('Did you mean dev_security');
    expect(harness.surface.messages).toEqual([]);
  });
});
