/**
 * Issue 35: a /call's decision follows the seeds' rule — the moderator's `record_decision` call
 * first, then a DECISION line however it is written, then a clearly marked default that is never
 * the topic; without a stated decision there is no Adopt (Reopen only), and a stale Adopt saves nothing.
 * The debaters here do not follow the instructions to the letter (no VOTE: lines).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { parseModeratorText } from '../../../src/core/workflows/call-verdict.js';
import { VERDICT_ADOPT_ACTION } from '../../../src/commands/action-ids.js';
import { startWorkflowHarness } from './workflow-harness.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const SLOPPY_DEBATERS = [say('I think Redis is the way, it is fast.'), say('Honestly I would measure the TTL first, then maybe.')];

async function debate(moderator: ReturnType<typeof say>[]) {
  harness = await startWorkflowHarness({ steps: [...SLOPPY_DEBATERS, ...moderator] });
  await harness.slash('call', 'geordi spock rounds=1 "Should we cache sessions in Redis?"');
  return harness.thread().find((message) => message.text.startsWith('⚖️'))!;
}

describe('/call decisions do not depend on exact wording', () => {
  it('reads a DECISION line written in the ways models write it', () => {
    for (const line of [
      'DECISION: Use Redis',
      '**Decision:** Use Redis',
      'Decision - Use Redis',
      '## Final decision: Use Redis',
      '- decision — Use Redis',
      'Decision proposed: Use Redis',
      '*Recommended decision*: Use Redis',
    ])
      expect(parseModeratorText(`Some synthesis.\n${line}\nMore words.`).decision, line).toBe('Use Redis');
    expect(parseModeratorText('We made no decision today. Decisions are hard.').decision).toBeUndefined();
  });

  it('a record_decision call is the decision, with its options and the votes the debaters never wrote', async () => {
    const card = await debate([
      callTool('record_decision', {
        decision: 'Cache sessions in Redis with a measured TTL',
        options: ['Redis now', 'Measure the TTL first'],
        votes: [
          { participant: 'Geordi', vote: 'APPROVE', reason: 'fast' },
          { participant: '@spock', vote: 'CHANGE', reason: 'measure first' },
        ],
      }),
      say('Both lean to Redis; Spock wants the TTL measured.'),
    ]);
    expect(harness!.model.requests[2]!.tools?.map((tool) => tool.name)).toEqual(['record_decision']);
    expect(card.text).toContain('**Decision proposed:** Cache sessions in Redis with a measured TTL _(recorded by TSUKA with record_decision)_');
    expect(card.text).toContain('• Redis now\n• Measure the TTL first');
    expect(card.text).toContain('✅ APPROVE — fast (as the moderator recorded it)');
    expect(card.text).toContain('✏️ CHANGE — measure first (as the moderator recorded it)');
    expect(card.text).not.toContain('no vote');
    expect(card.buttons.map((button) => button.label)).toEqual(['Adopt', 'Reopen']);
  });

  it('without the tool, a sloppy "**Final decision** -" line is read, and the card says it came from the text', async () => {
    const card = await debate([say('Good debate.\n\n**Final decision** - Cache sessions in Redis, TTL measured first\n\nBoth agree on caching.')]);
    expect(card.text).toContain(
      "**Decision proposed:** Cache sessions in Redis, TTL measured first _(read from TSUKA's text: it did not call record_decision)_",
    );
    expect(card.buttons.map((button) => button.label)).toEqual(['Adopt', 'Reopen']);
  });

  it('with no decision at all, the card says so (never the topic), offers Reopen only, and a stale Adopt saves nothing', async () => {
    const card = await debate([say('Both made fair points about caching and about measuring. It is a close call.')]);
    expect(card.text).toContain('**Decision:** ⚠️ no decision was stated');
    expect(card.text).not.toMatch(/Decision proposed:\** Should we cache/);
    expect(card.buttons.map((button) => button.label)).toEqual(['Reopen']);
    const answers: string[] = [];
    await harness!.layer.handle(
      {
        type: 'button-action',
        id: 'stale-adopt',
        platform: 'playground',
        channel: 'playground:general',
        user: 'playground:alice',
        fromBot: false,
        actionId: VERDICT_ADOPT_ACTION,
        value: card.buttons[0]!.value,
        message: card.ref,
        replyEphemeral: async (text) => void answers.push(text),
      },
      harness!.surface,
    );
    expect(answers).toEqual([expect.stringContaining('nothing to adopt')]);
    expect((await harness!.engine.memory.list('channel:playground:general')).filter((fact) => fact.kind === 'decision')).toEqual([]);
  });

  it('a verdict without a decision gets one from a DECISION reply in the thread by whoever started the call, and Adopt comes back', async () => {
    const card = await debate([say('Fair points on both sides. No clear winner.')]);
    const thread = `thread:${harness!.surface.messages[0]!.ref}`;
    const reply = (user: string, text: string, id: string) =>
      harness!.layer.handle(
        { type: 'thread-message', id, platform: 'playground', channel: 'playground:general', user, fromBot: false, message: `m-${id}`, thread, text },
        harness!.surface,
      );
    // Someone else cannot state it for the requester.
    await reply('playground:bob', 'DECISION: Never cache anything', 'r1');
    expect(card.buttons.map((button) => button.label)).toEqual(['Reopen']);
    await reply('playground:alice', '**Decision:** Cache sessions in Redis with a TTL', 'r2');
    expect(card.buttons.map((button) => button.label)).toEqual(['Adopt', 'Reopen']);
    expect(card.text).toContain('**Decision proposed:** Cache sessions in Redis with a TTL _(stated in the thread by <@playground:alice>)_');
    expect(card.text).not.toContain('Never cache anything');
  });
});
