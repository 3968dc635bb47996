/** What the agents of a /goal run are asked: a step's task with what came before, and the supervisor's review. */
import type { Character, Roster } from '../../../core/data/types.js';
import type { CompletedStep, StepResult } from '../../../core/workflows/goal/run-goal.js';
import type { PlanStep } from '../../../core/workflows/goal/plan-parser.js';

/** How much of an uncondensed earlier output a later step sees. */
const EARLIER_OUTPUT_CHARS = 1_500;
/** How much of a step's output the supervisor reads (long outputs come condensed). */
const REVIEW_OUTPUT_CHARS = 4_000;

/** The first agent of the plan whose active role is supervisor: the goal's reviewer, if any. */
export function supervisorOf(roster: Roster, planAgents: readonly string[]): Character | undefined {
  for (const name of planAgents) {
    const character = roster.characters.get(name);
    if (character?.activeRole === 'supervisor') return character;
  }
  return undefined;
}

export function stepPrompt(input: {
  objective: string;
  step: PlanStep;
  totalSteps: number;
  character: Character;
  previous: readonly CompletedStep[];
  parallel: boolean;
  rework?: string;
  previousAttempt?: string;
}): string {
  const { step, character } = input;
  const lines = [`Goal: ${input.objective}`, '', `Step ${step.number} of ${input.totalSteps} is yours, ${character.aiName}: ${step.task}`];
  if (input.parallel) {
    lines.push(
      '',
      "Other agents work at the same time, each on its own copy of the workspace; your changes are merged when the group ends. Do not count on files the others are writing. In your copy the dependency folders (node_modules, .venv) are the workspace's own, read-only, so the tests run but installs fail; git status and git diff show your changes (only files are merged back: do not commit).",
    );
  }
  lines.push('', 'Results of the earlier steps:', earlier(input.previous));
  if (input.rework !== undefined) {
    lines.push('', `The supervisor sent your previous attempt back for rework: ${input.rework}`);
    if (input.previousAttempt) lines.push('Your previous attempt:', clip(input.previousAttempt, EARLIER_OUTPUT_CHARS));
  }
  lines.push(
    '',
    'Do the task with your tools, then end with a short report: what you did, the files you created or changed, the commands you ran and their results.',
    'Then call report_status (COMPLETED or FAILED, with a summary); if you cannot call it, end with a line "STATUS: COMPLETED — summary".',
  );
  return lines.join('\n');
}

export function reviewPrompt(input: { objective: string; step: PlanStep; author: Character; result: StepResult; supervisor: Character }): string {
  return [
    `Goal: ${input.objective}`,
    '',
    `Review step ${input.step.number}, done by ${input.author.aiName}: ${input.step.task}`,
    '',
    'Its result:',
    clip(input.result.summary ?? input.result.output, REVIEW_OUTPUT_CHARS),
    '',
    `${input.supervisor.aiName}, judge whether the step did its task well enough for the goal. You may look at the files.`,
    'Accept it with cast_vote APPROVE, or send it back once for rework with cast_vote CHANGE and, as the reason, a precise note of what to fix.',
    'If you cannot call cast_vote, end with a line "VOTE: APPROVE — reason" or "VOTE: CHANGE — what to fix".',
  ].join('\n');
}

function earlier(previous: readonly CompletedStep[]): string {
  if (previous.length === 0) return '(none — you are first)';
  return previous
    .map(
      (done) =>
        `- Step ${done.step.number} (@${done.step.agent})${done.reworked ? ' after rework' : ''}: ${clip(done.result.summary ?? done.result.output, EARLIER_OUTPUT_CHARS)}`,
    )
    .join('\n');
}

function clip(text: string, limit: number): string {
  const trimmed = text.trim();
  if (trimmed === '') return '(no output)';
  return trimmed.length > limit ? `${trimmed.slice(0, limit)} […]` : trimmed;
}
