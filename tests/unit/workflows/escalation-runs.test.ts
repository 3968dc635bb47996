/** `request_goal` and `request_team` from a plain conversation, end to end: load, ask, approve, run in a new thread. */
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamPart } from '../../../src/core/model/language-model.js';
import { callTool, say, type ScriptedStep } from '../../../src/core/model/scripted-model.js';
import { callerOf, lastUserOf } from '../../support/scripted-callers.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

type Answer = ModelStreamPart[] | ((request: ModelRequest) => ModelStreamPart[]);

/**
 * The conversation and the run it starts call the model concurrently: each request goes to its
 * own queue, picked by `route`.
 */
function routed(route: (request: ModelRequest) => string, queues: Record<string, Answer[]>): ScriptedStep[] {
  const step: ScriptedStep = (request) => {
    const queue = route(request);
    const answer = queues[queue]?.shift();
    if (!answer) throw new Error(`no answer left for ${queue}`);
    return typeof answer === 'function' ? answer(request) : answer;
  };
  return Array.from({ length: 30 }, () => step);
}

const lastToolResult = (request: ModelRequest) => request.messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '';

async function approveInThread(h: Harness, thread: string, tool: string): Promise<string> {
  const hasPrompt = () => h.surface.inThread(thread).find((message) => message.buttons.some((button) => button.label === 'Approve'));
  await h.surface.waitFor(() => hasPrompt() !== undefined);
  const prompt = hasPrompt()!;
  expect(prompt.text).toContain(tool);
  const approve = prompt.buttons.find((button) => button.label === 'Approve')!;
  await h.send({
    type: 'button-action',
    id: `click-${tool}`,
    platform: 'playground',
    channel: 'playground:general',
    user: 'playground:alice',
    fromBot: false,
    actionId: approve.actionId,
    value: approve.value,
    message: prompt.ref,
    thread,
    replyEphemeral: async () => undefined,
  });
  return prompt.text;
}

describe('escalation to a workflow', () => {
  it('request_goal asks first, then plans and runs the goal in its own root message and thread', async () => {
    harness = await startCommandHarness({
      workflows: true,
      modelId: 'qwen2.5-72b-instruct',
      steps: routed((request) => callerOf(request), {
        unknown: [
          callTool('load_tools', { names: ['request_goal'] }),
          callTool('request_goal', { objective: 'Add a health check endpoint', reason: 'needs a developer' }),
          (request) => say(`Escalation: ${lastToolResult(request)}`),
        ],
        plan: [say('1. AGENT: @geordi — Add the /health endpoint\nEND')],
        'step:1': [say('Added /health.\nSTATUS: COMPLETED — endpoint added')],
        'review:1': [callTool('cast_vote', { vote: 'APPROVE', reason: 'good' }), say('Accepted.')],
      }),
    });
    await harness.mention('doctor we need a health check endpoint', { message: 'root' });
    const prompt = await approveInThread(harness, 'thread:root', 'request_goal');
    expect(prompt).toContain('Add a health check endpoint');
    await harness.surface.waitFor(() =>
      harness!.surface.inThread('thread:root').some((message) => message.text.includes('Escalation: Started /goal Add a health check endpoint')),
    );
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text.startsWith('🎯 Goal by')));
    const root = harness.surface.messages.find((message) => message.text.startsWith('🎯 Goal by'))!;
    expect(root.text).toBe('🎯 Goal by <@playground:alice>: Add a health check endpoint');
    const thread = `thread:${root.ref}`;
    await harness.surface.waitFor(() => harness!.surface.inThread(thread).some((message) => message.text.startsWith('✅ Goal completed.')), 8000);
    const texts = harness.surface.inThread(thread).map((message) => message.text);
    expect(texts).toContain('📋 Plan (1 step):\n1. @geordi — Add the /health endpoint');
    expect(harness.surface.inThread(thread).find((message) => message.identity?.name === 'Geordi')!.text).toContain('✅ step done — step 1: endpoint added');
    // The goal's messages stay in its own thread, not in the conversation's.
    expect(harness.surface.inThread('thread:root').some((message) => message.text.includes('📋 Plan'))).toBe(false);
    const goal = (await harness.engine.runs.list()).find((run) => run.kind === 'goal');
    expect(goal).toMatchObject({ status: 'completed', startedBy: 'playground:alice' });
  });

  it('request_team asks first, then runs the named team on the task in its own root message and thread', async () => {
    harness = await startCommandHarness({
      workflows: true,
      modelId: 'qwen2.5-72b-instruct',
      steps: routed((request) => (lastUserOf(request as never).startsWith('Team run "') ? 'team' : 'conversation'), {
        conversation: [
          callTool('load_tools', { names: ['request_team'] }),
          callTool('request_team', { team: 'dev_security', task: 'Harden the login form', reason: 'needs a build and an audit' }),
          (request) => say(`Escalation: ${lastToolResult(request)}`),
        ],
        team: [
          callTool('route_next', { agent: 'worf', reason: 'audit the form' }),
          say('Worf, please.'),
          say('Audited.\nSTATUS: COMPLETED — no issues'),
          say('NEXT: END — audited'),
        ],
      }),
    });
    await harness.mention('doctor please harden the login form', { message: 'root' });
    const prompt = await approveInThread(harness, 'thread:root', 'request_team');
    expect(prompt).toContain('dev_security');
    await harness.surface.waitFor(() =>
      harness!.surface.inThread('thread:root').some((message) => message.text.includes('Escalation: Started /team dev_security')),
    );
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text.startsWith('👥 Team')));
    const root = harness.surface.messages.find((message) => message.text.startsWith('👥 Team'))!;
    expect(root.text).toContain('Dev & Security');
    expect(root.text).toContain('Harden the login form');
    const thread = `thread:${root.ref}`;
    await harness.surface.waitFor(() => harness!.surface.inThread(thread).some((message) => message.text.startsWith('✅ Team run completed.')), 8000);
    expect(
      harness.surface
        .inThread(thread)
        .filter((message) => message.identity)
        .map((message) => message.identity!.name),
    ).toEqual(['Pike', 'Worf', 'Pike']);
    const team = (await harness.engine.runs.list()).find((run) => run.kind === 'team');
    expect(team).toMatchObject({ status: 'completed', startedBy: 'playground:alice' });
  });

  it('refuses an unknown team without starting anything and tells the agent why', async () => {
    harness = await startCommandHarness({
      workflows: true,
      modelId: 'qwen2.5-72b-instruct',
      steps: [
        callTool('load_tools', { names: ['request_team'] }),
        callTool('request_team', { team: 'dev_securty', task: 'Harden it', reason: 'audit' }),
        (request) => say(`Escalation: ${lastToolResult(request)}`),
      ],
    });
    await harness.mention('doctor harden it', { message: 'root' });
    await approveInThread(harness, 'thread:root', 'request_team');
    await harness.surface.waitFor(() => harness!.surface.inThread('thread:root').some((message) => message.text.includes('Escalation: Not started')));
    const reply = harness.surface.inThread('thread:root').find((message) => message.text.includes('Escalation: Not started'))!;
    expect(reply.text).toContain('dev_security');
    expect(harness.surface.messages.some((message) => message.text.startsWith('👥 Team'))).toBe(false);
    expect((await harness.engine.runs.list()).some((run) => run.kind === 'team')).toBe(false);
  });
});
