/** /team paths the reviewers found untested: the orchestrator naming nobody, hybrid change requests fed back, `teamMaxRounds` from the settings. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import type { Team } from '../../../src/core/data/types.js';
import type { ModelRequest } from '../../../src/core/model/language-model.js';
import { callTool, say } from '../../../src/core/model/scripted-model.js';
import { PACKAGE_ROOT } from '../../../src/app/package-root.js';
import { lastUserOf } from '../../support/scripted-callers.js';
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
const userOf = (request: ModelRequest) => lastUserOf(request as never);

describe('/team orchestrated fallback', () => {
  it('says so and hands the turn to the next free worker when the orchestrator names nobody', async () => {
    const prompts: string[] = [];
    harness = await startWorkflowHarness({
      steps: [
        say('Let us get going on this.'),
        (request) => {
          prompts.push(userOf(request));
          return say('Limiter added.\nSTATUS: COMPLETED — limiter added');
        },
        say('NEXT: END — done'),
      ],
    });
    await harness.slash('team', 'dev_security "Add rate limiting"');
    expect(texts(harness)).toContain('↪ Pike named no next worker — falling back to the next worker: Geordi.');
    expect(speakers(harness)).toEqual(['Pike', 'Geordi', 'Pike']);
    // A fallback carries no hand-over reason from the orchestrator.
    expect(prompts[0]).not.toContain('hands you the turn');
    expect(texts(harness).at(-1)).toContain('Pike ended the run: done');
  });
});

describe('/team hybrid change requests', () => {
  it('feeds the CHANGE and REJECT reasons of a vote into the next work round, and only that one', async () => {
    const workPrompts: string[] = [];
    const work = (answer: string) => (request: ModelRequest) => {
      workPrompts.push(userOf(request));
      return say(answer);
    };
    harness = await startWorkflowHarness({
      steps: [
        work('g1\nSTATUS: CONTINUE'),
        work('w1\nSTATUS: CONTINUE'),
        callTool('cast_vote', { vote: 'CHANGE', reason: 'add tests for the limiter' }),
        say('Needs tests.'),
        say('Not like this.\nVOTE: REJECT — the defaults are insecure'),
        work('g2\nSTATUS: COMPLETED'),
        work('w2\nSTATUS: COMPLETED'),
        say('VOTE: APPROVE — good now'),
        say('VOTE: APPROVE — fine'),
      ],
    });
    addTeam(harness, { name: 'hybrid_changes', mode: 'hybrid', members: ['geordi', 'worf'], rounds: 2 });
    await harness.slash('team', 'hybrid_changes build the limiter');
    expect(texts(harness)).toContain('🗳 Tally: 0 approve · 1 change · 1 reject · 0 missing — not approved');
    expect(workPrompts).toHaveLength(4);
    for (const prompt of workPrompts.slice(0, 2)) expect(prompt).not.toContain('The last vote asked for changes');
    for (const prompt of workPrompts.slice(2)) {
      expect(prompt).toContain('The last vote asked for changes:\n- Geordi (CHANGE): add tests for the limiter\n- Worf (REJECT): the defaults are insecure');
    }
    expect(texts(harness).at(-1)).toContain('Approved in round 2');
  });
});

describe('teamMaxRounds setting', () => {
  it('reads TSUKA_TEAM_MAX_ROUNDS or the config file key, defaults to 3, and bounds it', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'tsuka-team-rounds-'));
    try {
      const load = (environment: Record<string, string> = {}) =>
        loadConfig({ environment: { TSUKA_DATA_DIR: path.join(home, 'data'), ...environment }, workingDirectory: home, rootDirectory: PACKAGE_ROOT });
      expect(load().teamMaxRounds).toBe(3);
      expect(load({ TSUKA_TEAM_MAX_ROUNDS: '5' }).teamMaxRounds).toBe(5);
      expect(() => load({ TSUKA_TEAM_MAX_ROUNDS: '0' })).toThrow(/TSUKA_TEAM_MAX_ROUNDS/);
      await writeFile(path.join(home, 'tsuka.config.json'), JSON.stringify({ teamMaxRounds: 4 }));
      expect(load().teamMaxRounds).toBe(4);
      expect(load({ TSUKA_TEAM_MAX_ROUNDS: '2' }).teamMaxRounds).toBe(2);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('gives a team without its own rounds the configured number', async () => {
    const steps = Array.from({ length: 4 }, (_, index) => say(`turn ${index}\nSTATUS: CONTINUE`));
    harness = await startWorkflowHarness({ steps, workflow: { teamMaxRounds: 4 } });
    addTeam(harness, { name: 'rr_configured', mode: 'round-robin', members: ['geordi'] });
    await harness.slash('team', 'rr_configured keep going');
    expect(texts(harness)).toContain('— Round 4 of 4 —');
    expect(speakers(harness)).toEqual(['Geordi', 'Geordi', 'Geordi', 'Geordi']);
  });
});
