import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { startCommandHarness } from '../../support/command-harness.js';

type Harness = Awaited<ReturnType<typeof startCommandHarness>>;
let harness: Harness;
afterEach(async () => {
  await harness?.stop();
});

describe('escalation from a conversation', () => {
  it('request_call asks first, then starts the debate in its own root message and thread', async () => {
    harness = await startCommandHarness({
      workflows: true,
      modelId: 'qwen2.5-72b-instruct',
      steps: [
        callTool('load_tools', { names: ['request_call'] }),
        callTool('request_call', { participants: ['spock', 'worf'], topic: 'Cache sessions in Redis?', reason: 'two views needed' }),
        (request) => say(`Escalation: ${request.messages.filter((message) => message.role === 'tool').at(-1)!.content}`),
        say('Spock: caching is logical.'),
        say('Worf: caching is a risk.'),
        say('Spock: round two.'),
        say('Worf: round two.'),
        say('Synthesis: cache with care.'),
      ],
    });
    await harness.mention('doctor should we cache sessions?', { message: 'root' });
    await harness.surface.waitFor(() =>
      harness.surface.inThread('thread:root').some((message) => message.buttons.some((button) => button.label === 'Approve')),
    );
    const prompt = harness.surface.inThread('thread:root').find((message) => message.buttons.some((button) => button.label === 'Approve'))!;
    expect(prompt.text).toMatch(/request_call/);
    expect(harness.surface.messages.some((message) => message.text.startsWith('📞'))).toBe(false);
    const approve = prompt.buttons.find((button) => button.label === 'Approve')!;
    await harness.send({
      type: 'button-action',
      id: 'click-1',
      platform: 'playground',
      channel: 'playground:general',
      user: 'playground:alice',
      fromBot: false,
      actionId: approve.actionId,
      value: approve.value,
      message: prompt.ref,
      thread: 'thread:root',
      replyEphemeral: async () => undefined,
    });
    await harness.surface.waitFor(() => harness.surface.messages.some((message) => message.text.startsWith('📞 Call by')));
    await harness.surface.waitFor(() => harness.surface.inThread('thread:root').some((message) => /Escalation: Started \/call/.test(message.text)));
    const root = harness.surface.messages.find((message) => message.text.startsWith('📞 Call by'))!;
    expect(root.text).toMatch(/Cache sessions in Redis\?/);
    await harness.surface.waitFor(
      () => harness.surface.inThread(`thread:${root.ref}`).some((message) => message.text.includes('Synthesis: cache with care.')),
      8000,
    );
    // One JSON log line per run start and end, with duration, tokens and outcome.
    // Logged right after the closing post (no surface change follows), so poll the log itself.
    await expect.poll(() => harness.logger.entries.some((entry) => entry.message === 'run ended' && entry.fields.kind === 'call'), { interval: 10 }).toBe(true);
    const ended = harness.logger.entries.filter((entry) => entry.message === 'run ended');
    expect(ended.map((entry) => entry.fields.kind).sort()).toEqual(['ask', 'call']);
    for (const entry of ended) expect(entry.fields).toMatchObject({ outcome: 'completed', durationMs: expect.any(Number) });
    expect(ended.find((entry) => entry.fields.kind === 'ask')!.fields.completionTokens).toBeGreaterThan(0);
    expect(harness.logger.entries.filter((entry) => entry.message === 'run started')).toHaveLength(2);
  });

  it('a workflow cut by shutdown is recorded as interrupted and says so in its thread', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const opened = new Promise<void>((resolve) => (started = resolve));
    harness = await startCommandHarness({
      workflows: true,
      steps: [
        async () => {
          started();
          await released;
          return say('never shown');
        },
      ],
    });
    // The command's handler runs the whole debate: not awaited here.
    const call = harness.slash('call', 'spock worf "cache sessions?"');
    await opened;
    const stopping = harness.layer.stopAll();
    release();
    await stopping;
    await call;
    const [run] = await harness.engine.runs.list({ limit: 1 });
    expect(run).toMatchObject({ kind: 'call', status: 'interrupted' });
    expect(harness.surface.messages.some((message) => /Restarting — this run was interrupted/.test(message.text))).toBe(true);
  });
});
