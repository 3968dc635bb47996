/**
 * /team Resume in the core (issue 25): for every strategy, a run resumed from the checkpoint stored
 * after round (station) 1 asks exactly the members the uninterrupted run asked after round 1, with
 * the same prompts — round 1's members are not asked again, and nothing of round 1 is lost.
 */
import { describe, expect, it } from 'vitest';
import type { Character, Team, TeamMode } from '../../../src/core/data/types.js';
import { runTeam } from '../../../src/core/workflows/team/run-team.js';
import type { TeamCheckpoint } from '../../../src/core/workflows/team/team-checkpoint.js';
import type { MemberTurnOutcome, MemberTurnRequest, WorkflowIo } from '../../../src/core/workflows/workflow-io.js';
import { geordi } from '../agent/support/fixtures.js';

const member = (name: string): Character => ({ ...geordi, name, aiName: name[0]!.toUpperCase() + name.slice(1) });
const members = [member('ada'), member('bob'), member('cyd')];

/**
 * A member's answer as a function of its prompt alone (how far the run is), so a resumed run gets
 * the answers the uninterrupted one got: CONTINUE for work, CHANGE votes, the orchestrator routing
 * to the first free worker.
 */
function answer(request: MemberTurnRequest): Pick<MemberTurnOutcome, 'text' | 'status' | 'route' | 'vote'> {
  const name = request.character.name;
  const progress = `${(request.prompt.match(/^- \[/gm) ?? []).length}/${/pipeline station (\d+)/.exec(request.prompt)?.[1] ?? '-'}`;
  if (request.prompt.includes('You coordinate.')) {
    const free = /Workers free this round: @([a-z]+)/.exec(request.prompt)?.[1] ?? 'END';
    return { text: `route at ${progress}`, route: { agent: free, reason: `next at ${progress}` } };
  }
  if (request.prompt.includes('Discussion:'))
    return { text: `${name} votes at ${progress}`, vote: { vote: 'CHANGE', reason: `${name} wants more at ${progress}` } };
  return { text: `${name} worked at ${progress}`, status: { status: 'CONTINUE', summary: `${name} at ${progress}` } };
}

interface Recorded {
  calls: string[];
  prompts: string[];
  checkpoints: TeamCheckpoint[];
  /** The checkpoints stored after each work turn within a round. */
  turnCheckpoints: TeamCheckpoint[];
}

async function run(mode: TeamMode, resumeFrom?: TeamCheckpoint): Promise<Recorded> {
  const recorded: Recorded = { calls: [], prompts: [], checkpoints: [], turnCheckpoints: [] };
  const io: WorkflowIo = {
    signal: new AbortController().signal,
    activity: () => undefined,
    announce: async () => undefined,
    async runMember(request) {
      recorded.calls.push(request.character.name);
      recorded.prompts.push(request.prompt);
      const outcome = answer(request);
      return {
        character: request.character,
        finishReason: 'stop',
        usage: { promptTokens: 0, completionTokens: 0, peakContextTokens: 0, modelCalls: 1, toolCalls: 0, modelTimeMs: 0 },
        durationMs: 0,
        ...outcome,
      };
    },
  };
  const team: Team = { name: 't', displayName: 'T', description: 'test', members: members.map((m) => m.name), mode, rounds: 3, orchestrator: 'ada' };
  await runTeam({
    io,
    team,
    members,
    task: 'the task',
    maxRounds: 3,
    checkAcceptance: async () => ({ passed: true, report: [] }),
    workspaceFingerprint: async () => 'same',
    ...(resumeFrom ? { resumeFrom } : {}),
    onRoundEnd: async (checkpoint) => {
      recorded.checkpoints.push(structuredClone(checkpoint));
    },
    onTurnEnd: async (checkpoint) => {
      recorded.turnCheckpoints.push(structuredClone(checkpoint));
    },
  });
  return recorded;
}

describe.each<TeamMode>(['round-robin', 'orchestrated', 'hybrid', 'pipeline'])('a %s team resumed after round 1', (mode) => {
  it('asks only the members after round 1, with the prompts they would have had', async () => {
    const full = await run(mode);
    const afterRoundOne = full.checkpoints[0]!;
    expect(afterRoundOne.roundsDone).toBe(1);
    // As the store keeps it: JSON.
    const resumed = await run(mode, JSON.parse(JSON.stringify(afterRoundOne)) as TeamCheckpoint);
    const roundOne = full.calls.length - resumed.calls.length;
    expect(roundOne).toBeGreaterThan(0);
    expect(resumed.calls).toEqual(full.calls.slice(roundOne));
    expect(resumed.prompts).toEqual(full.prompts.slice(roundOne));
    expect(resumed.checkpoints).toEqual(full.checkpoints.slice(1));
  });
});

// Issue 35: a member that reported in the round under way at the restart is not asked again either.
describe.each<TeamMode>(['round-robin', 'orchestrated', 'hybrid'])('a %s team resumed after the first turn of round 2', (mode) => {
  it('asks only the members after that turn, with the prompts they would have had', async () => {
    const full = await run(mode);
    const cut = full.turnCheckpoints.find((checkpoint) => checkpoint.roundsDone === 1 && checkpoint.inRound === 1)!;
    expect(cut).toBeDefined();
    const resumed = await run(mode, JSON.parse(JSON.stringify(cut)) as TeamCheckpoint);
    const before = full.calls.length - resumed.calls.length;
    // The reported turn is not asked again: the resumed run asks exactly what the full run asked after it.
    const reportedText = cut.turns.at(-1)!.text;
    const reported = full.prompts.findIndex(
      (prompt, index) => answer({ character: member(full.calls[index]!), prompt } as MemberTurnRequest).text === reportedText,
    );
    expect(reported).toBeGreaterThanOrEqual(0);
    expect(before).toBeGreaterThan(reported);
    expect(resumed.calls).toEqual(full.calls.slice(before));
    expect(resumed.prompts).toEqual(full.prompts.slice(before));
    expect(resumed.checkpoints).toEqual(full.checkpoints.slice(1));
  });
});
