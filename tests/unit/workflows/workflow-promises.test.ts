/**
 * What the workflows promise their members: the `/tsuka effort` pin on every model call (/call,
 * /team, /goal and its planner), the coordination tools their roles allow, and the others' last
 * contributions in full.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { writeEffortPin } from '../../../src/commands/channels/settings-store.js';
import type { Team } from '../../../src/core/data/types.js';
import { startWorkflowHarness } from './workflow-harness.js';
import { goalModelSteps } from './goal/goal-script.js';

type Harness = Awaited<ReturnType<typeof startWorkflowHarness>>;
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

const many = (text: string) => Array.from({ length: 8 }, () => say(text));
function addTeam(h: Harness, team: Partial<Team> & Pick<Team, 'name' | 'mode' | 'members'>): void {
  h.engine.roster.teams.set(team.name, { displayName: team.name, description: 'test team', ...team });
}
const efforts = (h: Harness) => h.model.requests.map((request) => request.effort);

describe('the effort pin reaches every workflow model call', () => {
  it('/team: every member turn uses the pin over the character and role (worf the auditor would ask xhigh)', async () => {
    harness = await startWorkflowHarness({ steps: many('Done.\nSTATUS: COMPLETED') });
    await writeEffortPin(harness.engine.store, 'low');
    addTeam(harness, { name: 'rr_effort', mode: 'round-robin', members: ['geordi', 'worf'], rounds: 1 });
    await harness.slash('team', 'rr_effort check it');
    expect(harness.model.requests.length).toBeGreaterThanOrEqual(2);
    expect(new Set(efforts(harness))).toEqual(new Set(['low']));
  });

  it('/team without a pin: each member falls back to its own cascade (worf: role xhigh)', async () => {
    harness = await startWorkflowHarness({ steps: many('Done.\nSTATUS: COMPLETED') });
    addTeam(harness, { name: 'rr_no_pin', mode: 'round-robin', members: ['worf'], rounds: 1 });
    await harness.slash('team', 'rr_no_pin check it');
    expect(efforts(harness)[0]).toBe('xhigh');
  });

  it('/call: every speaker and the moderator use the pin', async () => {
    harness = await startWorkflowHarness({ steps: many('My view.') });
    await writeEffortPin(harness.engine.store, 'none');
    await harness.slash('call', 'pike spock rounds=1 caching sessions');
    expect(harness.model.requests.length).toBeGreaterThanOrEqual(3);
    expect(new Set(efforts(harness))).toEqual(new Set(['none']));
  });

  it('/goal: the planner, the step and the review all use the pin', async () => {
    const asked: string[] = [];
    harness = await startWorkflowHarness({
      steps: goalModelSteps(
        {
          // The plan names its supervisor (step 2), who reviews step 1.
          plan: [say('1. AGENT: @geordi — Write it\n2. AGENT: @pike — Sign off\nEND')],
          'step:1': [say('Written.\nSTATUS: COMPLETED — written')],
          'review:1': [callTool('cast_vote', { vote: 'APPROVE', reason: 'fine' }), say('Accepted.')],
          'step:2': [say('Signed off.\nSTATUS: COMPLETED — signed off')],
        },
        asked,
      ),
    });
    await writeEffortPin(harness.engine.store, 'medium');
    await harness.slash('goal', 'write it');
    expect(asked).toEqual(['plan', 'step:1', 'review:1', 'review:1', 'step:2']);
    expect(efforts(harness)).toEqual(['medium', 'medium', 'medium', 'medium', 'medium']);
  });
});

describe('team members', () => {
  it('are offered the coordination tools their roles allow from the first round, not only the supervisor', async () => {
    harness = await startWorkflowHarness({ steps: many('Done.\nSTATUS: COMPLETED') });
    addTeam(harness, { name: 'rr_tools', mode: 'round-robin', members: ['geordi'], rounds: 1 });
    await harness.slash('team', 'rr_tools coordinate');
    const offered = (harness.model.requests[0]!.tools ?? []).map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(['post_note', 'read_notes', 'send_message', 'spawn_agent', 'report_status']));
  });

  it("see the others' last contributions in full, not a 200-character digest", async () => {
    const long = `Findings: ${'the session cache keys collide under load; '.repeat(12)}END-OF-FINDINGS`;
    harness = await startWorkflowHarness({ steps: [say(`${long}\nSTATUS: CONTINUE`), ...many('Noted.\nSTATUS: COMPLETED')] });
    addTeam(harness, { name: 'rr_full', mode: 'round-robin', members: ['geordi', 'worf'], rounds: 1 });
    await harness.slash('team', 'rr_full review the cache');
    const worfPrompt = harness.model.requests[1]!.messages.at(-1)!.content;
    expect(long.length).toBeGreaterThan(400);
    expect(worfPrompt).toContain("The other members' last contributions:");
    expect(worfPrompt).toContain('END-OF-FINDINGS');
  });
});
