import { describe, expect, it } from 'vitest';
import { formatPlan, parsePlan, planSteps, type ParsedPlan } from '../../../../src/core/workflows/goal/plan-parser.js';
import { goalRoster } from './goal-fixtures.js';

const roster = goalRoster();

function plan(text: string): Extract<ParsedPlan, { kind: 'plan' }> {
  const parsed = parsePlan(text, roster);
  if (parsed.kind !== 'plan') throw new Error(`expected a plan, got ${JSON.stringify(parsed)}`);
  return parsed;
}

/** Each step as `agent|task`, groups as `[…]` when parallel: the shape the tests compare. */
function shape(text: string): string[] {
  return plan(text).groups.map((group) => {
    const steps = group.steps.map((step) => `${step.agent}|${step.task}`).join(', ');
    return group.parallel ? `[${steps}]` : steps;
  });
}

describe('parsePlan: one step line in every tolerated form', () => {
  const cases: [string, string][] = [
    ['AGENT: @geordi — Implement the parser', 'geordi|Implement the parser'],
    ['AGENT: @geordi - Implement the parser', 'geordi|Implement the parser'],
    ['AGENT: @geordi – Implement the parser', 'geordi|Implement the parser'],
    ['AGENT: @geordi: Implement the parser', 'geordi|Implement the parser'],
    ['agent: @Geordi — Implement the parser', 'geordi|Implement the parser'],
    ['Agent: geordi — Implement the parser', 'geordi|Implement the parser'],
    ['1. AGENT: @geordi — Implement the parser', 'geordi|Implement the parser'],
    ['2) AGENT: @geordi — Implement the parser', 'geordi|Implement the parser'],
    ['- AGENT: @geordi — Implement the parser', 'geordi|Implement the parser'],
    ['* AGENT: @geordi — Implement the parser', 'geordi|Implement the parser'],
    ['**AGENT:** @geordi — Implement the parser', 'geordi|Implement the parser'],
    ['**AGENT: @geordi — Implement the parser**', 'geordi|Implement the parser'],
    ['1. **AGENT:** **@geordi** — Implement the parser', 'geordi|Implement the parser'],
    ['`AGENT: @geordi — Implement the parser`', 'geordi|Implement the parser'],
    ['AGENT: `@geordi` — Implement the parser', 'geordi|Implement the parser'],
    ['AGENT: @geordi — Implement `src/parser.ts`', 'geordi|Implement `src/parser.ts`'],
    ['AGENT: @data_analyst — Crunch the **numbers**', 'data_analyst|Crunch the **numbers**'],
    ['- @geordi: Implement the parser', 'geordi|Implement the parser'],
  ];
  it.each(cases)('%s', (line, expected) => {
    expect(shape(line)).toEqual([expected]);
  });
});

describe('parsePlan: structure', () => {
  it('reads sequential steps, a PARALLEL group and END, ignoring prose around them', () => {
    const text = [
      'Here is my plan for the objective:',
      'AGENT: @una — Design the modules',
      'PARALLEL:',
      'AGENT: @geordi — Implement the core',
      'AGENT: @data — Write the docs',
      'END PARALLEL',
      'AGENT: @worf — Audit the code',
      'AGENT: @pike — Review everything',
      'END',
      'Let me know if you want changes.',
    ].join('\n');
    expect(shape(text)).toEqual(['una|Design the modules', '[geordi|Implement the core, data|Write the docs]', 'worf|Audit the code, pike|Review everything']);
    const parsed = plan(text);
    expect(parsed.problems).toEqual([]);
    expect(planSteps(parsed).map((step) => step.number)).toEqual([1, 2, 3, 4, 5]);
  });

  it('accepts keyword variants: lower case, END_PARALLEL, bold markers', () => {
    const text = '**parallel:**\n- agent: @geordi — a\n- agent: @data — b\n**end_parallel**\nend';
    expect(shape(text)).toEqual(['[geordi|a, data|b]']);
  });

  it('closes an unclosed PARALLEL at the end and says so', () => {
    const parsed = plan('AGENT: @una — a\nPARALLEL:\nAGENT: @geordi — b\nAGENT: @data — c');
    expect(parsed.groups.map((group) => group.parallel)).toEqual([false, true]);
    expect(parsed.groups[1]?.steps.map((step) => step.agent)).toEqual(['geordi', 'data']);
    expect(parsed.problems.join('\n')).toMatch(/not closed/);
  });

  it('flattens a nested PARALLEL into the outer block', () => {
    const text = 'PARALLEL:\nAGENT: @geordi — a\nPARALLEL:\nAGENT: @data — b\nEND PARALLEL\nAGENT: @worf — c\nEND PARALLEL\nAGENT: @pike — d';
    expect(shape(text)).toEqual(['[geordi|a, data|b, worf|c]', 'pike|d']);
    expect(plan(text).problems.join('\n')).toMatch(/inside another/);
  });

  it('runs a PARALLEL block with a single step as a sequential step', () => {
    expect(shape('AGENT: @una — a\nPARALLEL:\nAGENT: @geordi — b\nEND PARALLEL')).toEqual(['una|a, geordi|b']);
  });

  it('does not read prose that merely starts with a keyword as one', () => {
    const text = 'Parallel work is faster here.\nAgent Smith is not involved.\nAGENT: @geordi — a\nEnd of the day.';
    expect(shape(text)).toEqual(['geordi|a']);
  });

  it('ignores steps after END but reports them', () => {
    const parsed = plan('AGENT: @geordi — a\nEND\nAGENT: @data — b');
    expect(planSteps(parsed).map((step) => step.agent)).toEqual(['geordi']);
    expect(parsed.problems.join('\n')).toMatch(/after END/);
  });

  it('reads a plan wrapped in a code fence with Windows line ends', () => {
    expect(shape('```text\r\nAGENT: @geordi — a\r\nAGENT: @data — b\r\nEND\r\n```')).toEqual(['geordi|a, data|b']);
  });

  it('takes the task from the next line when the step line has none', () => {
    expect(shape('AGENT: @pike\nReview everything\nEND')).toEqual(['pike|Review everything']);
  });

  it('reports an END PARALLEL without a block', () => {
    expect(plan('AGENT: @geordi — a\nEND PARALLEL').problems.join('\n')).toMatch(/without a PARALLEL/);
  });
});

describe('parsePlan: unknown agents are reported, never dropped', () => {
  it('keeps the step with unknownAgent and a suggestion', () => {
    const parsed = plan('AGENT: @geordi — a\nAGENT: @wrof — Audit the code\nEND');
    const step = planSteps(parsed)[1];
    expect(step).toMatchObject({ agent: 'wrof', task: 'Audit the code', unknownAgent: true, suggestion: 'worf', line: 2 });
    expect(parsed.problems).toEqual(['Line 2: @wrof is not in the roster — did you mean @worf?']);
  });

  it('reports an unknown agent with no near name without a suggestion', () => {
    const parsed = plan('AGENT: @zzzzzz — something');
    expect(planSteps(parsed)[0]).toMatchObject({ agent: 'zzzzzz', unknownAgent: true });
    expect(planSteps(parsed)[0]?.suggestion).toBeUndefined();
    expect(parsed.problems).toEqual(['Line 1: @zzzzzz is not in the roster.']);
  });

  it('reports a step that names no agent', () => {
    const parsed = plan('AGENT: — do the thing');
    expect(planSteps(parsed)[0]).toMatchObject({ agent: '', task: 'do the thing', unknownAgent: true });
    expect(parsed.problems.join('\n')).toMatch(/names no agent/);
  });
});

describe('parsePlan: trivial answers', () => {
  it.each([
    ['NO TEAM NEEDED: The answer is 42.', 'The answer is 42.'],
    ['**No team needed** — The answer is 42.', 'The answer is 42.'],
    ['NO TEAM NEEDED\nThe answer is 42.', 'The answer is 42.'],
    ['The capital of France is Paris.', 'The capital of France is Paris.'],
    ['', ''],
  ])('%j → trivial', (text, answer) => {
    expect(parsePlan(text, roster)).toEqual({ kind: 'trivial', answer });
  });

  it('keeps a real plan even when the planner also wrote NO TEAM NEEDED, and notes it', () => {
    const parsed = plan('NO TEAM NEEDED maybe, but:\nAGENT: @geordi — a');
    expect(planSteps(parsed)).toHaveLength(1);
    expect(parsed.problems.join('\n')).toMatch(/NO TEAM NEEDED/);
  });
});

describe('formatPlan', () => {
  it('numbers the steps and indents parallel groups under a marker', () => {
    const text = 'AGENT: @una — Design\nPARALLEL:\nAGENT: @geordi — Build\nAGENT: @data — Document\nEND PARALLEL\nAGENT: @wrof — Audit\nEND';
    expect(formatPlan(parsePlan(text, roster))).toBe(
      [
        '1. @una — Design',
        '⇉ in parallel:',
        '    2. @geordi — Build',
        '    3. @data — Document',
        '4. @wrof ⚠ unknown — Audit',
        '',
        'Plan notes:',
        '⚠ Line 6: @wrof is not in the roster — did you mean @worf?',
      ].join('\n'),
    );
  });

  it('says no team is needed for a trivial answer', () => {
    expect(formatPlan({ kind: 'trivial', answer: 'Paris.' })).toBe('No team needed: Paris.');
  });
});
