/**
 * The /goal plan grammar, read tolerantly: local models number, bullet and bold their lines, mix
 * keyword case and wrap plans in prose. Structure problems and unknown agents are reported in
 * `problems`, never dropped silently, so the thread can show what the planner got wrong.
 */
import { findCharacter, suggestCharacters } from '../../data/character-lookup.js';
import type { Roster } from '../../data/types.js';

/** One `AGENT: @name — task` line. */
export interface PlanStep {
  /** 1-based position in the whole plan, for display and labels. */
  number: number;
  /** The character's file name when known; otherwise the name as the planner wrote it (may be ''). */
  agent: string;
  task: string;
  /** The planner named someone who is not in the roster; the step is kept so the thread can show it. */
  unknownAgent?: boolean;
  /** The nearest character name for an unknown agent ("did you mean"). */
  suggestion?: string;
  /** 1-based line of the planner's answer the step came from. */
  line: number;
}

/** Consecutive sequential steps, or one PARALLEL block. */
export interface PlanGroup {
  parallel: boolean;
  steps: PlanStep[];
}

export type ParsedPlan =
  | { kind: 'plan'; groups: PlanGroup[]; problems: string[] }
  /** The planner answered directly (`NO TEAM NEEDED: …`) or wrote no step at all. */
  | { kind: 'trivial'; answer: string };

/** The token a planner writes when one direct answer is enough. */
export const NO_TEAM_NEEDED = 'NO TEAM NEEDED';

// Bullets, numbering, quote marks and headings in front of a line, possibly several (`- 1. **AGENT:**`).
const LINE_PREFIX = /^(?:[-*+•>#]+\s+|\d+[.)]\s*|\(\d+\)\s*|step\s*\d+\s*[:.)-]\s*)/i;
// Markdown emphasis and code marks around keywords and names.
const DECORATION = /[*_`]+/g;
// Keywords need their colon (or an `@` name) so that prose such as "Parallel work is faster" is not read as one.
const AGENT_LINE = /^AGENT\s*(?::|(?=@))/i;
const PARALLEL_OPEN = /^PARALLEL\s*(?::.*)?$/i;
const PARALLEL_CLOSE = /^END[\s_-]*PARALLEL\s*[:.]?\s*$/i;
const PLAN_END = /^END(?:\s+(?:OF\s+)?PLAN)?\s*[:.!]?\s*$/i;
const NO_TEAM_LINE = /^NO[\s_-]+TEAM[\s_-]+NEEDED\b\s*[:.—–-]?\s*(.*)$/i;
// A bare `@name — task` bullet without the AGENT keyword; a separator is required so prose mentioning @someone is not a step.
const BARE_STEP = /^@([\p{L}\p{N}_.]+)\s*(?:—|–|-|:)\s*(.+)$/u;
// `@name — task`, `**@name**: task`, `name task`.
const AGENT_BODY = /^[*_`]*@?([\p{L}\p{N}](?:[\p{L}\p{N}_.]*[\p{L}\p{N}])?)[*_`.]*[,;]?\s*(?:(?:—|–|-{1,2}|:)\s*)?(.*)$/u;
const SEPARATOR_FIRST = /^(?:—|–|-{1,2}|:)\s*/;

interface Line {
  number: number;
  text: string;
  bare: string;
}

type Token =
  | { type: 'step'; line: number; name: string; task: string }
  | { type: 'parallel-open'; line: number }
  | { type: 'parallel-close'; line: number }
  | { type: 'end'; line: number }
  | { type: 'no-team'; line: number; answer: string }
  | { type: 'prose'; line: number; text: string };

/** Parses a planner's answer against the roster. */
export function parsePlan(text: string, roster: Roster): ParsedPlan {
  const lines = text.split(/\r?\n/).map((raw, index): Line => ({ number: index + 1, text: raw.trim(), bare: bareLine(raw) }));
  const tokens = lines.flatMap(tokenize);
  const problems: string[] = [];
  const groups: PlanGroup[] = [];
  let parallel: PlanGroup | undefined;
  let parallelDepth = 0;
  let ended = false;
  let stepsAfterEnd = 0;
  let pendingTaskStep: PlanStep | undefined;
  let counter = 0;

  const closeParallel = (): void => {
    if (parallel) pushParallel(groups, parallel, problems);
    parallel = undefined;
    parallelDepth = 0;
  };

  for (const token of tokens) {
    if (ended) {
      if (token.type === 'step') stepsAfterEnd += 1;
      continue;
    }
    if (token.type !== 'prose') pendingTaskStep = undefined;
    switch (token.type) {
      case 'step': {
        const step = resolveStep(roster, token, ++counter, problems);
        if (step.task === '') pendingTaskStep = step;
        if (parallel) parallel.steps.push(step);
        else appendSequential(groups, step);
        break;
      }
      case 'parallel-open':
        if (parallel) {
          parallelDepth += 1;
          problems.push(`Line ${token.line}: a PARALLEL block inside another one was treated as part of the outer block.`);
        } else {
          parallel = { parallel: true, steps: [] };
          parallelDepth = 1;
        }
        break;
      case 'parallel-close':
        if (!parallel) problems.push(`Line ${token.line}: END PARALLEL without a PARALLEL block was ignored.`);
        else if (--parallelDepth === 0) closeParallel();
        break;
      case 'end':
        ended = true;
        break;
      case 'no-team':
      case 'prose':
        // A step written as `AGENT: @name` with its task on the next line.
        if (token.type === 'prose' && pendingTaskStep) {
          pendingTaskStep.task = token.text;
          pendingTaskStep = undefined;
        }
        break;
    }
  }
  if (parallel) {
    problems.push('A PARALLEL block was not closed with END PARALLEL; it was closed at the end of the plan.');
    closeParallel();
  }
  if (stepsAfterEnd > 0) problems.push(`${stepsAfterEnd} step(s) written after END were ignored.`);
  for (const group of groups) {
    for (const step of group.steps) {
      if (step.task === '') problems.push(`Step ${step.number} (@${step.agent}) has no task.`);
    }
  }

  const stepCount = groups.reduce((sum, group) => sum + group.steps.length, 0);
  const noTeam = tokens.find((token): token is Extract<Token, { type: 'no-team' }> => token.type === 'no-team');
  if (stepCount === 0) return { kind: 'trivial', answer: trivialAnswer(lines, noTeam) };
  if (noTeam) problems.push(`Line ${noTeam.line}: the planner also wrote ${NO_TEAM_NEEDED}; the plan's steps were kept.`);
  return { kind: 'plan', groups, problems };
}

/** A readable list for the chat; parallel groups are shown indented under `⇉ in parallel:`. */
export function formatPlan(plan: ParsedPlan): string {
  if (plan.kind === 'trivial') return plan.answer === '' ? 'No team needed.' : `No team needed: ${plan.answer}`;
  const lines: string[] = [];
  for (const group of plan.groups) {
    if (group.parallel) lines.push('⇉ in parallel:');
    const indent = group.parallel ? '    ' : '';
    for (const step of group.steps) lines.push(`${indent}${formatStep(step)}`);
  }
  if (plan.problems.length > 0) {
    lines.push('', 'Plan notes:');
    for (const problem of plan.problems) lines.push(`⚠ ${problem}`);
  }
  return lines.join('\n');
}

/** Every step of the plan in order. */
export function planSteps(plan: Extract<ParsedPlan, { kind: 'plan' }>): PlanStep[] {
  return plan.groups.flatMap((group) => group.steps);
}

function formatStep(step: PlanStep): string {
  const name = step.agent === '' ? '(no agent)' : `@${step.agent}`;
  const marker = step.unknownAgent ? ' ⚠ unknown' : '';
  return `${step.number}. ${name}${marker} — ${step.task === '' ? '(no task)' : step.task}`;
}

function bareLine(raw: string): string {
  let text = raw.trim();
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = text
      .replace(LINE_PREFIX, '')
      .replace(/^[*_`]+(?=[-*+•\d(])/, '')
      .trim();
  }
  return text;
}

function tokenize(line: Line): Token[] {
  const keywordText = line.bare.replace(DECORATION, '').trim();
  if (keywordText === '') return [];
  if (PARALLEL_CLOSE.test(keywordText)) return [{ type: 'parallel-close', line: line.number }];
  if (PLAN_END.test(keywordText)) return [{ type: 'end', line: line.number }];
  const noTeam = NO_TEAM_LINE.exec(keywordText);
  if (noTeam) return [{ type: 'no-team', line: line.number, answer: trimUnbalanced(afterKeyword(line.bare, 3)) }];
  const open = PARALLEL_OPEN.exec(keywordText);
  if (open) {
    // `PARALLEL: AGENT: @x — task` on one line opens the block and holds its first step.
    const rest = tokenize({ number: line.number, text: '', bare: afterKeyword(line.bare, 1) });
    return [{ type: 'parallel-open', line: line.number }, ...rest.filter((token) => token.type === 'step')];
  }
  if (AGENT_LINE.test(keywordText)) return [agentToken(line.number, afterKeyword(line.bare, 1))];
  const bare = BARE_STEP.exec(line.bare.replace(DECORATION, ''));
  if (bare && /^[-*+•\d]/.test(line.text)) return [agentToken(line.number, line.bare)];
  return [{ type: 'prose', line: line.number, text: line.text }];
}

// The original text after the first `wordCount` words of a keyword and its colon, decorations tolerated.
function afterKeyword(text: string, wordCount: number): string {
  const word = '[*_`]*[\\p{L}]+[*_`]*';
  const keyword = new RegExp(`^${Array.from({ length: wordCount }, () => word).join('[\\s_-]+')}\\s*[:.—–-]?[*_\`]*\\s*`, 'u');
  return text.replace(keyword, '').trim();
}

function agentToken(line: number, body: string): Token {
  const cleaned = trimUnbalanced(body);
  if (SEPARATOR_FIRST.test(cleaned)) return { type: 'step', line, name: '', task: trimUnbalanced(cleaned.replace(SEPARATOR_FIRST, '')) };
  const match = AGENT_BODY.exec(cleaned);
  if (!match) return { type: 'step', line, name: '', task: cleaned };
  return { type: 'step', line, name: match[1] ?? '', task: trimUnbalanced(match[2] ?? '') };
}

// Drops a leading or trailing run of `*`, `_` or backticks only when it has no partner in the text:
// the end of a bold line goes, but the closing backtick of `src/app.ts` stays.
function trimUnbalanced(text: string): string {
  let result = text.trim();
  for (const edge of [/^[*_`]+/, /[*_`]+$/]) {
    const run = edge.exec(result)?.[0];
    if (run && result.split(run).length % 2 === 0) result = result.replace(edge, '').trim();
  }
  return result;
}

function resolveStep(roster: Roster, token: Extract<Token, { type: 'step' }>, number: number, problems: string[]): PlanStep {
  const character = token.name === '' ? undefined : findCharacter(roster, token.name);
  if (character) return { number, agent: character.name, task: token.task, line: token.line };
  const step: PlanStep = { number, agent: token.name, task: token.task, line: token.line, unknownAgent: true };
  if (token.name === '') {
    problems.push(`Line ${token.line}: step ${number} names no agent.`);
    return step;
  }
  const suggestion = suggestCharacters(roster, token.name)[0];
  if (suggestion) step.suggestion = suggestion.name;
  problems.push(`Line ${token.line}: @${token.name} is not in the roster${suggestion ? ` — did you mean @${suggestion.name}?` : '.'}`);
  return step;
}

function appendSequential(groups: PlanGroup[], step: PlanStep): void {
  const last = groups[groups.length - 1];
  if (last && !last.parallel) last.steps.push(step);
  else groups.push({ parallel: false, steps: [step] });
}

// A block with one step has nothing to run beside it: it runs as a sequential step, without a staging copy.
function pushParallel(groups: PlanGroup[], block: PlanGroup, problems: string[]): void {
  if (block.steps.length === 0) {
    problems.push('An empty PARALLEL block was ignored.');
    return;
  }
  if (block.steps.length === 1) {
    appendSequential(groups, block.steps[0] as PlanStep);
    return;
  }
  groups.push(block);
}

function trivialAnswer(lines: Line[], noTeam: Extract<Token, { type: 'no-team' }> | undefined): string {
  if (!noTeam)
    return lines
      .map((line) => line.text)
      .join('\n')
      .trim();
  const following = lines.filter((line) => line.number > noTeam.line).map((line) => line.text);
  return [noTeam.answer, ...following].join('\n').trim();
}
