import { describe, expect, it } from 'vitest';
import { characterCatalogue } from '../../../../src/core/data/roster-summary.js';
import { parsePlan } from '../../../../src/core/workflows/goal/plan-parser.js';
import { buildPlannerPrompt } from '../../../../src/core/workflows/goal/planner-prompt.js';
import { goalRoster } from './goal-fixtures.js';

const roster = goalRoster();

describe('buildPlannerPrompt', () => {
  const prompt = buildPlannerPrompt({ objective: '  Build a CLI with tests  ', roster, maxSteps: 5 });

  it('states every grammar keyword and the trivial answer', () => {
    for (const keyword of ['AGENT: @name — task', 'PARALLEL:', 'END PARALLEL', '\nEND\n', 'NO TEAM NEEDED: ']) {
      expect(prompt.system).toContain(keyword);
    }
    expect(prompt.system).toContain('at most 5 steps');
  });

  it('lists the whole character catalogue', () => {
    expect(prompt.system).toContain(characterCatalogue(roster));
  });

  it('has an example that parses into a valid plan with a parallel group and only roster names', () => {
    const example = prompt.system.split('Example')[1]?.split('\n').slice(1).join('\n') ?? '';
    const parsed = parsePlan(`${example.split('\nEND\n')[0]}\nEND`, roster);
    expect(parsed.kind).toBe('plan');
    if (parsed.kind !== 'plan') return;
    expect(parsed.problems).toEqual([]);
    expect(parsed.groups.map((group) => group.parallel)).toEqual([false, true, false]);
  });

  it('puts the trimmed objective in the user message', () => {
    expect(prompt.user).toBe('Objective: Build a CLI with tests\n\nWrite the plan now.');
  });
});
