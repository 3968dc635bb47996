import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { APPROVE_ACTION } from '../../../src/commands/approvals/approval-flow.js';
import type { Team } from '../../../src/core/data/types.js';
import { startWorkflowHarness } from './workflow-harness.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

function addTeam(h: Harness, team: Partial<Team> & Pick<Team, 'name' | 'mode' | 'members'>): void {
  h.engine.roster.teams.set(team.name, { displayName: team.name, description: 'test team', ...team });
}
const speakers = (h: Harness) =>
  h
    .thread()
    .filter((message) => message.identity)
    .map((message) => message.identity!.name);
const texts = (h: Harness) => h.thread().map((message) => message.text);

describe('/team round-robin', () => {
  it('ends early when a whole round reports COMPLETED', async () => {
    harness = await startWorkflowHarness({
      steps: [say('Done A.\nSTATUS: COMPLETED'), callTool('report_status', { status: 'COMPLETED', summary: 'done B' }), say('ok')],
    });
    addTeam(harness, { name: 'rr_test', mode: 'round-robin', members: ['geordi', 'worf'], rounds: 3 });
    await harness.slash('team', 'rr_test do the thing');
    expect(speakers(harness)).toEqual(['Geordi', 'Worf']);
    expect(texts(harness).at(-1)).toContain('Every member reported COMPLETED in round 1');
  });

  it('stops at teamMaxRounds and respects maxRoundsPerMember', async () => {
    harness = await startWorkflowHarness({
      steps: [say('a\nSTATUS: CONTINUE'), say('b\nSTATUS: CONTINUE'), say('c\nSTATUS: CONTINUE')],
      workflow: { teamMaxRounds: 2 },
    });
    addTeam(harness, { name: 'rr_limits', mode: 'round-robin', members: ['geordi', 'worf'], maxRoundsPerMember: 1 });
    await harness.slash('team', 'rr_limits keep going');
    expect(speakers(harness)).toEqual(['Geordi', 'Worf']);
    expect(texts(harness)).toContain('— Round 1 of 2 —');
    expect(texts(harness).at(-1)).toContain('Every member has had 1 turns');
    const noStatus = await startWorkflowHarness({ steps: [say('no status line here'), say('nor here')], workflow: { teamMaxRounds: 1 } });
    try {
      addTeam(noStatus, { name: 'rr_one', mode: 'round-robin', members: ['geordi', 'worf'] });
      await noStatus.slash('team', 'rr_one go');
      expect(noStatus.thread().find((message) => message.identity?.name === 'Geordi')!.text).toContain(
        '⚠️ degraded protocol: no status reported — assumed CONTINUE',
      );
      expect(noStatus.thread().at(-1)!.text).toContain('1 rounds used');
    } finally {
      await noStatus.stop();
    }
  });
});

describe('a failed model turn', () => {
  it('ends the run as failed instead of going on without the member', async () => {
    harness = await startWorkflowHarness({ steps: [] });
    addTeam(harness, { name: 'rr_broken', mode: 'round-robin', members: ['geordi', 'worf'] });
    await harness.slash('team', 'rr_broken anything');
    expect(speakers(harness)).toEqual(['Geordi']);
    expect(texts(harness).at(-1)).toContain("✖ Run failed.\nGeordi's turn failed");
    const [run] = await harness.runs();
    expect(run!.status).toBe('failed');
  });
});

describe('/team pipeline', () => {
  it('runs every station without acceptance even when the first says COMPLETED (§6.5)', async () => {
    harness = await startWorkflowHarness({
      steps: [
        say('Implemented.\nSTATUS: COMPLETED — code done'),
        say('Reviewed.\nSTATUS: COMPLETED — looks fine'),
        say('Documented.\nSTATUS: COMPLETED — docs'),
      ],
    });
    addTeam(harness, { name: 'pipe_plain', mode: 'pipeline', members: ['geordi', 'troi', 'data'] });
    await harness.slash('team', 'pipe_plain ship the feature');
    expect(speakers(harness)).toEqual(['Geordi', 'Troi', 'Data']);
    expect(texts(harness).at(-1)).toContain('All 3 stations done.');
    expect(harness.model.requests[1]!.messages.at(-1)!.content).toContain('Implemented.');
  });

  it('retries with the acceptance failures fed back, then passes', async () => {
    let workspace = '';
    harness = await startWorkflowHarness({
      steps: [
        say('Review pending.\nSTATUS: COMPLETED'),
        async () => {
          await writeFile(path.join(workspace, 'REVIEW.md'), '# ok\n');
          return say('Wrote REVIEW.md.\nSTATUS: COMPLETED');
        },
      ],
    });
    workspace = harness.engine.workspace.root;
    addTeam(harness, {
      name: 'pipe_accept',
      mode: 'pipeline',
      members: ['troi'],
      stations: [
        {
          member: 'troi',
          acceptance: [
            { type: 'file-exists', path: 'REVIEW.md' },
            { type: 'command', command: 'ls' },
          ],
          maxAttempts: 2,
        },
      ],
    });
    await harness.slash('team', 'pipe_accept review it');
    expect(texts(harness).some((text) => text.startsWith('🧪 Acceptance (station 1, attempt 1): failed') && text.includes('REVIEW.md does not exist'))).toBe(
      true,
    );
    expect(texts(harness).some((text) => text.startsWith('🧪 Acceptance (station 1, attempt 2): passed') && text.includes('`ls` exited 0'))).toBe(true);
    expect(harness.model.requests[1]!.messages.at(-1)!.content).toContain('REVIEW.md does not exist');
    expect(texts(harness).at(-1)).toContain('✅ Team run completed.');
  });

  it('judges a retry that repeats its sentence by its acceptance check: it passes when the files now pass', async () => {
    let workspace = '';
    harness = await startWorkflowHarness({
      steps: [
        say('Wrote out.json.\nSTATUS: COMPLETED'),
        async () => {
          await writeFile(path.join(workspace, 'out.json'), '{"ok":true}\n');
          return say('Wrote out.json.\nSTATUS: COMPLETED');
        },
      ],
    });
    workspace = harness.engine.workspace.root;
    addTeam(harness, {
      name: 'pipe_same_words',
      mode: 'pipeline',
      members: ['troi'],
      acceptance: [{ type: 'json-valid', path: 'out.json' }],
      stations: [{ member: 'troi', maxAttempts: 3 }],
    });
    await harness.slash('team', 'pipe_same_words write out.json');
    expect(texts(harness).some((text) => text.includes('Stall'))).toBe(false);
    expect(texts(harness).some((text) => text.startsWith('🧪 Acceptance (station 1, attempt 2): passed'))).toBe(true);
    expect(texts(harness).at(-1)).toContain('✅ Team run completed.');
  });

  it('fails after the bounded attempts, and stops retrying on a stall (workspace unchanged, check failed again)', async () => {
    harness = await startWorkflowHarness({ steps: [say('First answer.\nSTATUS: COMPLETED'), say('A different answer.\nSTATUS: COMPLETED')] });
    addTeam(harness, {
      name: 'pipe_stall',
      mode: 'pipeline',
      members: ['troi'],
      acceptance: [{ type: 'json-valid', path: 'out.json' }],
      stations: [{ member: 'troi', maxAttempts: 5 }],
    });
    await harness.slash('team', 'pipe_stall write out.json');
    expect(texts(harness).some((text) => text.includes("⚠️ Stall: Troi's attempt changed nothing in the workspace and the check failed again"))).toBe(true);
    expect(texts(harness).at(-1)).toContain('✖ Team run failed.');
    expect(harness.model.requests).toHaveLength(2);

    // The second attempt changes the workspace, so it is no stall: the attempts simply run out.
    let boundedRoot = '';
    const bounded = await startWorkflowHarness({
      steps: [
        say('first try\nSTATUS: COMPLETED'),
        async () => {
          await writeFile(path.join(boundedRoot, 'other.txt'), 'not the file\n');
          return say('second try\nSTATUS: COMPLETED');
        },
      ],
    });
    boundedRoot = bounded.engine.workspace.root;
    try {
      addTeam(bounded, { name: 'pipe_bounded', mode: 'pipeline', members: ['troi'], acceptance: [{ type: 'file-exists', path: 'never.txt' }] });
      await bounded.slash('team', 'pipe_bounded try');
      expect(bounded.thread().at(-1)!.text).toContain('was not accepted after 2 attempts');
    } finally {
      await bounded.stop();
    }
  });

  it('asks in the thread before a non-SAFE acceptance command', async () => {
    harness = await startWorkflowHarness({ steps: [say('Ready.\nSTATUS: COMPLETED')] });
    addTeam(harness, { name: 'pipe_cmd', mode: 'pipeline', members: ['geordi'], acceptance: [{ type: 'command', command: 'mkdir dist' }] });
    const running = harness.slash('team', 'pipe_cmd build');
    await harness.surface.waitFor(() => harness!.thread().some((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION)));
    const prompt = harness.thread().find((message) => message.buttons.some((button) => button.actionId === APPROVE_ACTION))!;
    expect(prompt.text).toContain('acceptance check: mkdir dist');
    await harness.click(APPROVE_ACTION, prompt.buttons.find((button) => button.actionId === APPROVE_ACTION)!.value, prompt.ref);
    await running;
    expect(texts(harness).some((text) => text.includes('`mkdir dist` exited 0'))).toBe(true);
    expect(texts(harness).at(-1)).toContain('✅ Team run completed.');
  });
});

describe('/team hybrid', () => {
  it('shows the tally and never counts a missing vote as approval (§6.4)', async () => {
    harness = await startWorkflowHarness({
      steps: [
        say('g work\nSTATUS: COMPLETED'),
        say('w work\nSTATUS: COMPLETED'),
        say('p work\nSTATUS: COMPLETED'),
        say('u work\nSTATUS: COMPLETED'),
        callTool('cast_vote', { vote: 'APPROVE', reason: 'good' }),
        say('Looks good to me.'),
        say('Fine by me.\nVOTE: APPROVE — secure enough'),
        say('I have thoughts but no vote.'),
        say('Also no vote.'),
      ],
    });
    addTeam(harness, { name: 'hybrid_test', mode: 'hybrid', members: ['worf', 'geordi', 'pike', 'una'], rounds: 1, discussionRounds: 1, voting: true });
    await harness.slash('team', 'hybrid_test decide');
    const tally = texts(harness).find((text) => text.startsWith('🗳 Tally'))!;
    expect(tally).toBe('🗳 Tally: 2 approve · 0 change · 0 reject · 2 missing (no vote from Pike, Una) — not approved');
    const worfVote = harness
      .thread()
      .filter((message) => message.identity?.name === 'Worf')
      .at(-1)!;
    expect(worfVote.text).toContain('🗳 APPROVE — good');
    expect(worfVote.text).not.toContain('degraded');
    const geordiVote = harness
      .thread()
      .filter((message) => message.identity?.name === 'Geordi')
      .at(-1)!;
    expect(geordiVote.text).toContain('⚠️ degraded protocol: vote read from a VOTE: line');
    expect(
      harness
        .thread()
        .filter((message) => message.identity?.name === 'Pike')
        .at(-1)!.text,
    ).toContain('🗳 no vote cast');
    expect(texts(harness).at(-1)).toContain('No majority approval after 1 rounds');
    expect(harness.model.requests[4]!.tools?.map((tool) => tool.name)).toContain('cast_vote');
  });

  it('ends approved when a strict majority approves', async () => {
    harness = await startWorkflowHarness({
      steps: [say('g\nSTATUS: COMPLETED'), say('w\nSTATUS: COMPLETED'), say('VOTE: APPROVE — yes'), say('VOTE: APPROVE — yes')],
    });
    addTeam(harness, { name: 'hybrid_ok', mode: 'hybrid', members: ['geordi', 'worf'], rounds: 2 });
    await harness.slash('team', 'hybrid_ok decide');
    expect(texts(harness)).toContain('🗳 Tally: 2 approve · 0 change · 0 reject · 0 missing — approved');
    expect(texts(harness).at(-1)).toContain('Approved in round 1');
  });
});
