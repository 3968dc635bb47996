import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../../src/core/model/scripted-model.js';
import { lastUserOf } from '../../support/scripted-callers.js';
import { startWorkflowHarness } from './workflow-harness.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

describe('/call from a slash command', () => {
  it('debates in rounds under each identity, shows the transcript to every speaker, synthesises and stores the run', async () => {
    harness = await startWorkflowHarness({
      steps: [
        say('Geordi r1: cache it.'),
        say('Pike r1: measure first.'),
        say('Geordi r2: agreed.'),
        say('Pike r2: then decide.'),
        say('Synthesis: measure, then cache.'),
      ],
    });
    const replies = await harness.slash('call', '@geordi @pike "Should we cache sessions in Redis?"');
    expect(replies).toEqual([]);
    const root = harness.surface.messages[0]!;
    expect(root.text).toContain('📞 Call by <@playground:alice>: Should we cache sessions in Redis? — Geordi, Pike');
    const thread = harness.thread();
    const visible = thread.filter((message) => !message.text.startsWith('🛰'));
    expect(visible.map((message) => [message.identity?.name ?? 'bot', message.text.trim()])).toEqual([
      ['bot', '— Round 1 of 2 —'],
      ['Geordi', 'Geordi r1: cache it.'],
      ['Pike', 'Pike r1: measure first.'],
      ['bot', '— Round 2 of 2 —'],
      ['Geordi', 'Geordi r2: agreed.'],
      ['Pike', 'Pike r2: then decide.'],
      ['bot', '— Synthesis by Pike —'],
      ['Pike', 'Synthesis: measure, then cache.'],
      ['bot', expect.stringContaining('✅ Call finished.')],
      ['bot', expect.stringContaining('⚖️ **Verdict** — Should we cache sessions in Redis?')],
    ]);
    // The run card: one message, final state without buttons.
    const card = thread.find((message) => message.text.startsWith('🛰'))!;
    expect(card.buttons).toEqual([]);
    expect(card.text).toContain('finished');
    // Every speaker saw the transcript so far; no tools were offered to the debaters, the moderator only record_decision.
    const requests = harness.model.requests;
    expect(lastUserOf(requests[1]!)).toContain('[Geordi]: "Geordi r1: cache it."');
    expect(lastUserOf(requests[3]!)).toContain('[Pike]: "Pike r1: measure first."');
    expect(requests.slice(0, 4).every((request) => request.tools === undefined)).toBe(true);
    expect(requests[4]!.tools?.map((tool) => tool.name)).toEqual(['record_decision']);
    const [run] = await harness.runs();
    expect(run).toMatchObject({ kind: 'call', status: 'completed', startedBy: 'playground:alice' });
    expect(run!.stats).toMatchObject({ turns: 5, 'Geordi.outputTokens': expect.any(Number), 'Pike.peakContextTokens': 100 });
    const events = await harness.engine.runs.events(run!.id);
    expect(events.filter((event) => event.type === 'message').map((event) => (event as { agent: string }).agent)).toEqual([
      'playground:alice',
      'geordi',
      'pike',
      'geordi',
      'pike',
      'pike',
    ]);
  });

  it('uses the first supervisor as moderator and honours rounds=N', async () => {
    harness = await startWorkflowHarness({ steps: [say('Pike opens.'), say('Spock replies.'), say('Pike sums up.')] });
    await harness.slash('call', 'pike spock rounds=1 caching sessions');
    const texts = harness.thread().map((message) => message.text);
    expect(texts).toContain('— Round 1 of 1 —');
    expect(texts).toContain('— Synthesis by Pike —');
    expect(texts.some((text) => text.includes('Round 2'))).toBe(false);
  });

  it('answers a usage error ephemerally and starts nothing', async () => {
    harness = await startWorkflowHarness();
    expect(await harness.slash('call', '@geordi "alone"')).toEqual([expect.stringContaining('at least two participants')]);
    expect(await harness.slash('call', '@geordi @spcok "topic"')).toEqual([expect.stringContaining('Did you mean @Spock')]);
    expect(harness.surface.messages).toEqual([]);
  });
});

describe('escalation service (request_call outside a workflow)', () => {
  it('starts a /call in its own root message and refuses an invalid request without posting', async () => {
    const { createEscalationService } = await import('../../../src/commands/workflows/escalation-service.js');
    const { createWorkflows } = await import('../../../src/commands/workflows/create-workflows.js');
    const { commandDependencies } = await import('../../../src/app/command-wiring.js');
    const { createModelControl } = await import('../../../src/app/model-control.js');
    harness = await startWorkflowHarness({ steps: [say('a'), say('b'), say('c'), say('d'), say('synthesis')] });
    const deps = commandDependencies(harness.engine, createModelControl(harness.engine));
    const handlers = createWorkflows(deps)({ approvals: harness.layer.approvals, activeRuns: harness.layer.activeRuns });
    const service = createEscalationService({ deps, handlers, surface: harness.surface, channel: 'playground:general', user: 'playground:alice' });
    const context = {} as Parameters<typeof service.start>[1];
    expect(await service.start({ kind: 'call', participants: ['spock'], topic: 'x', reason: 'y' }, context)).toContain(
      'Not started: A call needs at least two participants',
    );
    expect(harness.surface.messages).toEqual([]);
    const answer = await service.start({ kind: 'call', participants: ['spock', '@worf'], topic: 'Redis?', reason: 'debate' }, context);
    expect(answer).toContain('Started /call @spock @worf "Redis?"');
    await harness.surface.waitFor(() => harness!.surface.messages.some((message) => message.text.includes('✅ Call finished.')));
    expect(harness.surface.messages[0]!.text).toContain('📞 Call by <@playground:alice>: Redis? — Spock, Worf · 2 rounds');
  });
});
