/** /goal on the shared workflow session: its own stats, its plan's members, its turns' workspace. */
import { mkdir } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../../src/core/model/scripted-model.js';
import { lastUserOf } from '../../../support/scripted-callers.js';
import { startWorkflowHarness } from '../workflow-harness.js';
import { goalModelSteps, type GoalScript } from './goal-script.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

async function start(script: GoalScript, asked: string[] = []): Promise<Harness> {
  harness = await startWorkflowHarness({ steps: goalModelSteps(script, asked) });
  await mkdir(harness.engine.workspace.root, { recursive: true });
  return harness;
}

describe('/goal on the workflow session', () => {
  it("has the supervisor the plan names review every other step, and closes with the goal's table only and its per-agent stats", async () => {
    const asked: string[] = [];
    const h = await start(
      {
        plan: [say('1. AGENT: @geordi — Write it\n2. AGENT: @worf — Audit it\n3. AGENT: @pike — Sign off\nEND')],
        'step:1': [say('Written.\nSTATUS: COMPLETED — written')],
        'review:1': [callTool('cast_vote', { vote: 'APPROVE', reason: 'fine' }), say('Accepted.')],
        'step:2': [say('Clean.\nSTATUS: COMPLETED — audited')],
        'review:2': [callTool('cast_vote', { vote: 'APPROVE', reason: 'fine' }), say('Accepted.')],
        'step:3': [say('Signed off.\nSTATUS: COMPLETED — signed off')],
      },
      asked,
    );
    await h.slash('goal', 'write and audit');
    expect(asked).toEqual(['plan', 'step:1', 'review:1', 'review:1', 'step:2', 'review:2', 'review:2', 'step:3']);
    expect(h.thread().filter((message) => message.identity?.name === 'Pike' && message.text.includes('accepted'))).toHaveLength(2);
    const final = h.thread().at(-1)!.text;
    expect(final).toContain('✅ Goal completed.');
    expect(final.match(/```\nagent/g)).toHaveLength(1);
    expect(final).toMatch(/\npike\s+\d+/);
    const [run] = await h.runs();
    expect(run!.stats!['geordi.outputTokens']).toBeGreaterThan(0);
    expect(run!.stats!['pike.totalTokens']).toBeGreaterThan(0);
    // The session's collector (by display name, with tokens per second) stayed out of it.
    expect(Object.keys(run!.stats!).filter((key) => key.endsWith('.tokensPerSecond'))).toEqual([]);
    expect(run!.stats!.turns).toBe(0);
  });

  it("lets send_message reach the plan's agents only", async () => {
    const h = await start({
      plan: [say('1. AGENT: @geordi — Write it\n2. AGENT: @worf — Audit it\nEND')],
      'step:1': [
        callTool('load_tools', { names: ['send_message'] }),
        callTool('send_message', { target: 'data', content: 'not in this goal' }),
        callTool('send_message', { target: 'worf', content: 'look at hello.txt first' }),
        say('Written.\nSTATUS: COMPLETED — written'),
      ],
      'step:2': [
        (request) =>
          say(
            lastUserOf(request as never).includes('- geordi: look at hello.txt first')
              ? 'Got the note.\nSTATUS: COMPLETED — audited'
              : 'No note.\nSTATUS: COMPLETED — audited',
          ),
      ],
    });
    await h.slash('goal', 'write and audit');
    const toolResults = h.model.requests
      .flatMap((request) => request.messages)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content);
    expect(toolResults.some((content) => content.includes('"data" is not a member of this run. Members: geordi, worf.'))).toBe(true);
    expect(h.thread().find((message) => message.identity?.name === 'Worf')!.text).toContain('Got the note.');
  });
});
