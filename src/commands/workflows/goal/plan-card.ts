/**
 * The plan card of a /goal (issue 25): every step with its character, the parallel groups, the
 * tools each step's character may use that ask first — so the approvals to expect — and the
 * budget, with Run plan / Edit / Cancel. Nothing runs before Run plan.
 */
import type { Roster } from '../../../core/data/types.js';
import type { ToolSchema } from '../../../core/tools/tool.js';
import type { PlanStep } from '../../../core/workflows/goal/plan-parser.js';
import type { GoalPlan } from '../../../core/workflows/goal/run-goal.js';
import { CANCEL_PLAN_ACTION, EDIT_PLAN_ACTION, RUN_PLAN_ACTION } from '../../action-ids.js';
import type { Button } from '../../chat-surface.js';

export interface PlanCardContext {
  roster: Roster;
  toolSchemas: ReadonlyMap<string, ToolSchema>;
  /** How the requester is written in chat (`<@U1>`). */
  requester: string;
  /** The budget in words, when the goal has one. */
  budget?: string;
}

export const planButtons = (runId: string): Button[] => [
  { actionId: RUN_PLAN_ACTION, label: 'Run plan', style: 'primary', value: runId },
  { actionId: EDIT_PLAN_ACTION, label: 'Edit', style: 'secondary', value: runId },
  { actionId: CANCEL_PLAN_ACTION, label: 'Cancel', style: 'danger', value: runId },
];

/** The tools of the step's character (its active role) that ask before they run: not SAFE. */
export function toolsThatAsk(step: PlanStep, context: Pick<PlanCardContext, 'roster' | 'toolSchemas'>): string[] {
  const character = context.roster.characters.get(step.agent);
  const role = character ? context.roster.roles.get(character.activeRole) : undefined;
  if (!role) return [];
  return role.allowedTools.filter((name) => {
    const risk = context.toolSchemas.get(name)?.riskLevel;
    return risk !== undefined && risk !== 'SAFE';
  });
}

function stepLine(step: PlanStep, context: PlanCardContext, indent: string): string {
  const character = context.roster.characters.get(step.agent);
  const who =
    step.unknownAgent || !character
      ? `@${step.agent || '(no agent)'} ⚠ not in the roster — skipped`
      : `@${step.agent} (${character.aiName}, ${character.activeRole})`;
  const asks = toolsThatAsk(step, context);
  const tools = asks.length > 0 ? `\n${indent}   may ask to use: ${asks.join(', ')}` : `\n${indent}   safe tools only`;
  return `${indent}${step.number}. ${who} — ${step.task || '(no task)'}${tools}`;
}

export function planCardText(plan: GoalPlan, context: PlanCardContext): string {
  const steps = plan.groups.flatMap((group) => group.steps);
  const lines = [`📋 **Plan** (${steps.length} step${steps.length === 1 ? '' : 's'}) — nothing runs until **Run plan**`];
  for (const group of plan.groups) {
    if (group.parallel) lines.push('⇉ in parallel (each in a staging copy, merged afterwards):');
    for (const step of group.steps) lines.push(stepLine(step, context, group.parallel ? '    ' : ''));
  }
  const byTool = new Map<string, string[]>();
  for (const step of steps) for (const tool of toolsThatAsk(step, context)) byTool.set(tool, [...(byTool.get(tool) ?? []), `#${step.number}`]);
  lines.push(
    byTool.size > 0
      ? `Approvals to expect (asked in this thread, decided by ${context.requester} or an admin): ${[...byTool].map(([tool, at]) => `${tool} (${at.join(', ')})`).join(' · ')}`
      : 'Approvals to expect: none (every step uses safe tools only).',
  );
  lines.push(`Budget: ${context.budget ?? 'none (add `--budget 20m` or `--budget 50k` to the command)'}`);
  if (plan.problems.length > 0) lines.push('Plan notes:', ...plan.problems.map((problem) => `⚠ ${problem}`));
  lines.push('**Edit**: reply in this thread with the changed plan · **Cancel** ends the goal.');
  return lines.join('\n');
}
