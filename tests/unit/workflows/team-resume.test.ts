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
}

async function run(mode: TeamMode, resumeFrom?: TeamCheckpoint): Promise<Recorded> {
  const recorded: Recorded = { calls: [], prompts: [], checkpoints: [] };
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
