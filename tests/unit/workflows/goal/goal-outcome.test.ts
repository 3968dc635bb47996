/** How a /goal run closes: failed steps counted, fallbacks shown as degraded protocol, every model call in the stats. */
import { mkdir } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../../src/core/model/scripted-model.js';
import { startWorkflowHarness } from '../workflow-harness.js';
import { goalModelSteps, type GoalScript } from './goal-script.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

async function start(script: GoalScript): Promise<Harness> {
  harness = await startWorkflowHarness({ steps: goalModelSteps(script) });
  await mkdir(harness.engine.workspace.root, { recursive: true });
  return harness;
}

const approveVote = () => [callTool('cast_vote', { vote: 'APPROVE', reason: 'fine' }), say('Accepted.')];
const turnOf = (h: Harness, name: string) => h.thread().find((message) => message.identity?.name === name)!.text;

describe('/goal outcome', () => {
  it('counts a step that reported FAILED, shows a missing status as degraded protocol, and puts the planner and summary calls in the table', async () => {
    const longDocs = `Wrote the docs.\n${'A line of the guide. '.repeat(120)}`;
    const h = await start({
      plan: [say('1. AGENT: @geordi — Build it\n2. AGENT: @data — Document it\nEND')],
      'step:1': [callTool('report_status', { status: 'FAILED', summary: 'the build is broken' }), say('Could not build.')],
      'review:1': approveVote(),
      'step:2': [say(longDocs)],
      condense: [say('Docs written: a guide.')],
      'review:2': approveVote(),
    });
    await h.slash('goal', 'build and document');

    expect(turnOf(h, 'Geordi')).toContain('✖ failed — step 1: the build is broken');
    const data = turnOf(h, 'Data');
    expect(data).toContain('✅ step done — step 2');
    expect(data).toContain('⚠️ degraded protocol: no status reported — assumed COMPLETED');
    expect(turnOf(h, 'Geordi')).not.toContain('degraded protocol');

    const final = h.thread().at(-1)!.text;
    expect(final).toContain('⚠️ Goal finished with 1 failed step(s).');
    expect(final).not.toContain('✅ Goal completed.');
    expect(final).toContain('1 step(s) done · 1 step(s) failed (#1)');
    expect(final).toMatch(/\n\(planner\)\s+\d+/);
    expect(final).toMatch(/\n\(summaries\)\s+\d+/);
    expect(final).toContain('(planner) is the planning call, (summaries) the condensing of long step outputs — counted in the total row.');

    const [run] = await h.runs();
    expect(run).toMatchObject({ kind: 'goal', status: 'completed' });
    const stats = run!.stats!;
    expect(stats['(planner).totalTokens']).toBeGreaterThan(0);
    expect(stats['(summaries).outputTokens']).toBeGreaterThan(0);
    const rows = ['(planner)', 'geordi', 'pike', 'data', '(summaries)'];
    expect(stats.totalTokens).toBe(rows.reduce((sum, row) => sum + Number(stats[`${row}.totalTokens`] ?? 0), 0));
    // The total row of the table counts the planner too.
    const totalRow = /\ntotal\s+([\d,]+)\s+[\d,]+\s+([\d,]+)/.exec(final)!;
    expect(Number(totalRow[2]!.replace(/,/g, ''))).toBe(stats.totalTokens);
  });

  it('ends as failed when every step failed, thrown or reported', async () => {
    const h = await start({
      plan: [say('1. AGENT: @geordi — Build it\n2. AGENT: @worf — Audit it\nEND')],
      'step:1': [say('Nothing compiles.\nSTATUS: FAILED — compiler missing')],
      'review:1': approveVote(),
      // No answer for step 2: its model call fails and the step throws.
    });
    await h.slash('goal', 'build and audit');

    expect(turnOf(h, 'Geordi')).toContain('✖ failed — step 1: compiler missing');
    expect(h.thread().some((message) => message.text.startsWith('✖ Step 2 (@worf) failed'))).toBe(true);
    const final = h.thread().at(-1)!.text;
    expect(final).toContain('✖ Goal failed: every step failed.');
    expect(final).toContain('0 step(s) done · 2 step(s) failed (#1, #2)');
    const [run] = await h.runs();
    expect(run!.status).toBe('failed');
    const card = h.thread().find((message) => message.text.startsWith('🛰'))!;
    expect(card.text).toContain('✖ failed');
  });
});
