/**
 * Issue 28, debate → decision: a /call's synthesis is written by a moderator who did not argue,
 * it ends with a verdict card, Adopt saves a channel `decision` fact and — after approval — a
 * numbered decision record, Reopen runs one more round, `/tsuka decisions` lists them.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../../src/core/model/scripted-model.js';
import { buildVerdict, parseModeratorText, tallyVotes } from '../../../src/core/workflows/call-verdict.js';
import { decisionFileName, nextDecisionNumber } from '../../../src/core/workflows/decision-record.js';
import { VERDICT_ADOPT_ACTION, VERDICT_REOPEN_ACTION } from '../../../src/commands/action-ids.js';
import { lastUserOf, systemOf } from '../../support/scripted-callers.js';
import { startWorkflowHarness } from './workflow-harness.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const MODERATOR = [
  'OPTIONS:',
  '- Cache sessions in Redis with a TTL',
  '- Keep sessions in the database',
  'DECISION: Cache sessions in Redis with a 30 minute TTL',
  'Both agree caching helps; Spock wants the TTL measured first.',
].join('\n');

let clicks = 0;
async function click(h: Harness, actionId: string, value: string, message: string, user: string): Promise<string[]> {
  const answers: string[] = [];
  await h.layer.handle(
    {
      type: 'button-action',
      id: `verdict-click-${++clicks}`,
      platform: 'playground',
      channel: 'playground:general',
      user,
      fromBot: false,
      actionId,
      value,
      message,
      replyEphemeral: async (text) => void answers.push(text),
    },
    h.surface,
  );
  return answers;
}

async function debate(h: Harness) {
  await h.slash('call', 'geordi spock rounds=1 "Should we cache sessions in Redis?"');
  const card = h.thread().find((message) => message.text.startsWith('⚖️'))!;
  return card;
}

function debateSteps() {
  return [
    say('Redis is fast.\nPOSITION: Cache sessions in Redis.\nVOTE: APPROVE — it is fast'),
    say('Measure first.\nPOSITION: Only with a measured TTL.\nVOTE: CHANGE — measure the TTL'),
    say(MODERATOR),
  ];
}

describe('the /call verdict', () => {
  it('parses the moderator text, positions and votes; dissent is who differs from the prevailing vote', () => {
    expect(parseModeratorText(MODERATOR)).toEqual({
      options: ['Cache sessions in Redis with a TTL', 'Keep sessions in the database'],
      decision: 'Cache sessions in Redis with a 30 minute TTL',
      synthesis: 'Both agree caching helps; Spock wants the TTL measured first.',
    });
    const verdict = buildVerdict({
      topic: 'Redis?',
      moderator: 'TSUKA',
      participants: [
        { name: 'a', aiName: 'A' },
        { name: 'b', aiName: 'B' },
        { name: 'c', aiName: 'C' },
      ],
      lastTurns: new Map([
        ['a', 'Yes.\n**VOTE: APPROVE** — fast'],
        ['b', 'POSITION: sure\nVOTE: approve'],
        ['c', 'No way. Too risky.\nVOTE: REJECT - risky'],
      ]),
      moderatorText: 'no structure at all',
    });
    expect(verdict.positions.map((position) => [position.aiName, position.position, position.vote])).toEqual([
      ['A', 'Yes.', 'APPROVE'],
      ['B', 'sure', 'APPROVE'],
      ['C', 'No way.', 'REJECT'],
    ]);
    expect(verdict.tally).toEqual([
      { vote: 'APPROVE', count: 2 },
      { vote: 'REJECT', count: 1 },
    ]);
    expect(verdict.dissent.map((position) => position.aiName)).toEqual(['C']);
    // Issue 35: no decision stated is said so — the topic never stands in.
    expect(verdict).toMatchObject({ decision: 'no decision was stated', decisionGiven: false, decisionSource: 'default', options: [] });
    // A tie goes to APPROVE, then CHANGE.
    expect(
      tallyVotes([
        { name: 'x', aiName: 'X', position: '', vote: 'REJECT' },
        { name: 'y', aiName: 'Y', position: '', vote: 'CHANGE' },
      ]).dissent.map((p) => p.aiName),
    ).toEqual(['X']);
  });

  it('numbers decision records after the existing ones', () => {
    expect(nextDecisionNumber([])).toBe(1);
    expect(nextDecisionNumber(['0001-a.md', '0012-b.md', 'README.md', '7-x.md'])).toBe(13);
    expect(decisionFileName(13, 'Cache sessions in Redis, with a TTL!')).toBe('0013-cache-sessions-in-redis-with-a-ttl.md');
  });

  it('has TSUKA moderate when no participant is a supervisor, and ends with a verdict card with Adopt and Reopen', async () => {
    harness = await startWorkflowHarness({ steps: debateSteps() });
    const card = await debate(harness);
    const speakers = harness.thread().map((message) => [message.identity?.name ?? 'bot', message.text.trim().split('\n')[0]]);
    // The synthesis is not written by one of the debaters (before: Spock, the last speaker).
    expect(speakers).toContainEqual(['bot', '— Synthesis by TSUKA —']);
    expect(speakers).toContainEqual(['TSUKA', 'OPTIONS:']);
    const moderatorRequest = harness.model.requests[2]!;
    expect(systemOf(moderatorRequest)).toContain('You are TSUKA, the neutral moderator');
    expect(lastUserOf(moderatorRequest)).toContain('DECISION:');
    // The last round asks for the position and the vote.
    expect(lastUserOf(harness.model.requests[0]!)).toContain('VOTE: APPROVE|CHANGE|REJECT');
    expect(card.text).toContain('⚖️ **Verdict** — Should we cache sessions in Redis?');
    expect(card.text).toContain('• Cache sessions in Redis with a TTL\n• Keep sessions in the database');
    expect(card.text).toContain('**Geordi**: Cache sessions in Redis. · ✅ APPROVE — it is fast');
    expect(card.text).toContain('**Spock**: Only with a measured TTL. · ✏️ CHANGE — measure the TTL');
    expect(card.text).toContain('**Decision proposed:** Cache sessions in Redis with a 30 minute TTL');
    expect(card.text).toContain('**Dissent:** Spock (CHANGE — measure the TTL)');
    expect(card.buttons.map((button) => button.label)).toEqual(['Adopt', 'Reopen']);
    expect(harness.thread().at(-1)).toBe(card);
  });

  it('Adopt: only the requester or an admin; saves a decision fact citing the run, then writes the numbered record after approval', async () => {
    harness = await startWorkflowHarness({ steps: debateSteps() });
    const workspace = harness.engine.workspace.root;
    await mkdir(path.join(workspace, 'docs', 'decisions'), { recursive: true });
    await writeFile(path.join(workspace, 'docs', 'decisions', '0003-older.md'), '# 0003. Older\n');
    const card = await debate(harness);
    const runId = card.buttons[0]!.value;

    expect(await click(harness, VERDICT_ADOPT_ACTION, runId, card.ref, 'playground:bob')).toEqual([
      'Only the person who started this call or an admin can adopt its verdict.',
    ]);
    expect((await harness.engine.memory.list('channel:playground:general')).filter((fact) => fact.kind === 'decision')).toEqual([]);

    const adopting = click(harness, VERDICT_ADOPT_ACTION, runId, card.ref, 'playground:alice');
    await harness.surface.waitFor(() => harness!.thread().some((message) => message.text.includes('wants to run `write_file`')));
    const [decision] = (await harness.engine.memory.list('channel:playground:general')).filter((fact) => fact.kind === 'decision');
    expect(decision).toMatchObject({ kind: 'decision', savedBy: 'playground:alice', tags: ['decision', runId] });
    expect(decision!.content).toContain('Decision: Cache sessions in Redis with a 30 minute TTL');
    expect(decision!.content).toContain(`/call run ${runId}`);
    expect(card.text).toContain(`📌 Adopted by <@playground:alice> as decision \`${decision!.id}\`.`);
    expect(card.buttons).toEqual([]);
    // A second click changes nothing.
    expect(await click(harness, VERDICT_ADOPT_ACTION, runId, card.ref, 'playground:admin')).toEqual([expect.stringContaining('already adopted')]);

    const prompt = harness.thread().find((message) => message.text.includes('wants to run `write_file`'))!;
    expect(prompt.text).toContain('docs/decisions/0004-cache-sessions-in-redis-with-a-30-minute-ttl.md');
    expect(prompt.text).toContain('+ # 0004. Cache sessions in Redis with a 30 minute TTL');
    expect(await readdir(path.join(workspace, 'docs', 'decisions'))).toEqual(['0003-older.md']);
    await harness.click('tsuka_approve', prompt.buttons[0]!.value, prompt.ref);
    await adopting;
    const record = await readFile(path.join(workspace, 'docs', 'decisions', '0004-cache-sessions-in-redis-with-a-30-minute-ttl.md'), 'utf8');
    expect(record).toContain(`- Decided in: /call run \`${runId}\``);
    expect(record).toContain(`- Memory: decision \`${decision!.id}\``);
    expect(record).toContain('## Dissent\n\n- Spock: CHANGE — measure the TTL');
    expect(harness.thread().at(-1)!.text).toContain('📄 Wrote `docs/decisions/0004-cache-sessions-in-redis-with-a-30-minute-ttl.md`');
    const audit = await harness.engine.audit.list({});
    expect(audit).toContainEqual(expect.objectContaining({ type: 'memory-decision', actor: 'playground:alice', factId: decision!.id }));

    // The decision is in the channel's memory, with its id, for later prompts; and `/tsuka decisions` lists it.
    const context = await harness.engine.memory.contextFor('cache sessions in redis', { scope: 'channel:playground:general', budgetChars: 4000 });
    expect(context).toContain(`(id ${decision!.id})`);
    const [listing] = await harness.slash('tsuka', 'decisions');
    expect(listing).toContain(`\`${decision!.id}\``);
    expect(listing).toContain('Cache sessions in Redis with a 30 minute TTL');
    expect(listing).toContain(`run \`${runId}\``);
  });

  it('Adopt whose write is denied keeps the decision and writes no file', async () => {
    harness = await startWorkflowHarness({ steps: debateSteps() });
    const card = await debate(harness);
    const adopting = click(harness, VERDICT_ADOPT_ACTION, card.buttons[0]!.value, card.ref, 'playground:admin');
    await harness.surface.waitFor(() => harness!.thread().some((message) => message.text.includes('wants to run `write_file`')));
    const prompt = harness.thread().find((message) => message.text.includes('wants to run `write_file`'))!;
    await harness.click('tsuka_deny', prompt.buttons.at(-1)!.value, prompt.ref, 'playground:admin');
    await adopting;
    expect(harness.thread().at(-1)!.text).toMatch(/was not written .*stays in memory/);
    await expect(readdir(path.join(harness.engine.workspace.root, 'docs', 'decisions'))).rejects.toThrow();
    expect((await harness.engine.memory.list('channel:playground:general')).filter((fact) => fact.kind === 'decision')).toHaveLength(1);
  });

  it('Reopen runs one more round in the same thread, from the stored transcript, and ends with a new verdict', async () => {
    harness = await startWorkflowHarness({
      steps: [
        ...debateSteps(),
        say('Round two: still fast.\nVOTE: APPROVE'),
        say('Measured now.\nVOTE: APPROVE — measured'),
        say('DECISION: Cache in Redis\nAll agree.'),
      ],
    });
    const card = await debate(harness);
    const runId = card.buttons[0]!.value;
    await click(harness, VERDICT_REOPEN_ACTION, runId, card.ref, 'playground:alice');
    expect(card.text).toContain('↩ Reopened by <@playground:alice>');
    expect(card.buttons).toEqual([]);
    const texts = harness.thread().map((message) => message.text);
    expect(texts).toContain('— Round 2 of 2 —');
    expect(lastUserOf(harness.model.requests[3]!)).toContain('[Spock]: "Measure first.');
    const cards = harness.thread().filter((message) => message.text.startsWith('⚖️'));
    expect(cards).toHaveLength(2);
    expect(cards[1]!.text).toContain('**Decision proposed:** Cache in Redis');
    expect(cards[1]!.text).toContain('**Dissent:** none');
    expect(cards[1]!.buttons[0]!.value).not.toBe(runId);
    expect(await click(harness, VERDICT_ADOPT_ACTION, runId, card.ref, 'playground:alice')).toEqual([expect.stringContaining('was reopened')]);
    expect((await harness.runs()).map((run) => run.title).sort()).toEqual([
      'Call (reopened): Should we cache sessions in Redis?',
      'Call: Should we cache sessions in Redis?',
    ]);
  });
});
