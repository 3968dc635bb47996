/**
 * The /goal planner's prompt: the plan grammar stated precisely, one example, the character
 * catalogue, and when to answer directly instead of assembling a team.
 */
import { characterCatalogue } from '../../data/roster-summary.js';
import type { Roster } from '../../data/types.js';
import { NO_TEAM_NEEDED } from './plan-parser.js';

/** Steps a plan may have unless the caller says otherwise; small models plan worse past this. */
export const DEFAULT_PLAN_MAX_STEPS = 8;

export interface PlannerPromptInput {
  objective: string;
  roster: Roster;
  maxSteps?: number;
}

/** The system and user messages of the planner's one model call. */
export function buildPlannerPrompt(input: PlannerPromptInput): { system: string; user: string } {
  const maxSteps = input.maxSteps ?? DEFAULT_PLAN_MAX_STEPS;
  const names = exampleNames(input.roster);
  const system = [
    'You are the planner of a team of AI agents. You do not do the work yourself: you choose which agents do it, and in which order.',
    '',
    'Write the plan in exactly this format, one instruction per line, and nothing else:',
    'AGENT: @name — task',
    '    One step: the agent @name does the task. The task must be self-contained: the agent sees only its task and the results of the steps before it.',
    'PARALLEL:',
    '    Opens a block of steps that run at the same time, each on its own copy of the workspace. Use it only for steps that do not depend on each other and do not edit the same files.',
    'END PARALLEL',
    '    Closes the block. Blocks are never nested.',
    'END',
    '    Ends the plan.',
    '',
    'Steps outside a PARALLEL block run one after the other, in the order written.',
    `Use at most ${maxSteps} steps. Use only names from the catalogue below, written with @ exactly as listed. Pick each agent for what its description says it does well; an agent may appear in several steps.`,
    'Put a review or check step at the end when the work changes files.',
    '',
    'Example (it shows the format only; plan for the real objective):',
    `AGENT: @${names[0]} — Design the module layout and write it to docs/plan.md`,
    'PARALLEL:',
    `AGENT: @${names[1]} — Implement the modules described in docs/plan.md under src/`,
    `AGENT: @${names[2]} — Write the user guide in docs/guide.md from docs/plan.md`,
    'END PARALLEL',
    `AGENT: @${names[0]} — Review src/ and docs/guide.md against docs/plan.md and list any problem`,
    'END',
    '',
    `When the objective needs no team — a question you can answer at once, with no files to change and nothing to run — answer with one line "${NO_TEAM_NEEDED}: " followed by your answer, and no plan.`,
    '',
    'Catalogue of agents:',
    characterCatalogue(input.roster),
  ].join('\n');
  const user = `Objective: ${input.objective.trim()}\n\nWrite the plan now.`;
  return { system, user };
}

// Real names in the example make small models copy valid names rather than invented ones.
function exampleNames(roster: Roster): [string, string, string] {
  const sorted = [...roster.characters.keys()].sort();
  const pick = (index: number): string => sorted[index % Math.max(sorted.length, 1)] ?? `agent${index + 1}`;
  return [pick(0), pick(1), pick(2)];
}
