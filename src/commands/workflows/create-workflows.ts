/** The /call, /team and /goal handlers for `createCommandLayer(deps, createWorkflows(deps))`. */
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowHandlers, WorkflowServices } from '../workflow-handlers.js';
import { handleCallCommand } from './call-command.js';
import { handleGoalCommand } from './goal/goal-command.js';
import { handleTeamCommand } from './team-command.js';
import { depsInChannel } from '../channels/channel-deps.js';
import { handleGoalResume } from './goal/goal-resume.js';
import { handleTeamResume } from './team/team-resume.js';
import { handleVerdictButton } from './verdict-buttons.js';
import { handleVerdictDecisionReply } from './verdict-edit.js';

export interface WorkflowOptions {
  teamMaxRounds?: number;
  /** Least time between run-card edits. */
  cardIntervalMs?: number;
  /** Most steps the /goal planner is asked to use. */
  goalMaxSteps?: number;
  /** /goal waits for Run plan (`TSUKA_GOAL_CONFIRM`); off unless set. */
  goalConfirm?: boolean;
}

export function createWorkflows(deps: CommandDependencies, options: WorkflowOptions = {}): (services: WorkflowServices) => WorkflowHandlers {
  // Each run works in its channel's workspace (the `channels` section), else the configured one.
  const goalOptions = {
    ...(options.cardIntervalMs !== undefined ? { cardIntervalMs: options.cardIntervalMs } : {}),
    ...(options.goalMaxSteps !== undefined ? { maxSteps: options.goalMaxSteps } : {}),
    ...(options.goalConfirm !== undefined ? { confirm: options.goalConfirm } : {}),
  };
  return (services) => ({
    call: async (event, surface) => handleCallCommand(await depsInChannel(deps, event.channel, surface), services, event, surface, options),
    team: async (event, surface) => handleTeamCommand(await depsInChannel(deps, event.channel, surface), services, event, surface, options),
    goal: async (event, surface) => handleGoalCommand(await depsInChannel(deps, event.channel, surface), services, event, surface, goalOptions),
    resume: async (event, surface) =>
      (await deps.runs.get(event.value))?.kind === 'team'
        ? handleTeamResume(deps, services, event, surface, options)
        : handleGoalResume(deps, services, event, surface, goalOptions),
    button: (event, surface) => handleVerdictButton(deps, services, event, surface, options),
    reply: (event, surface) => handleVerdictDecisionReply(deps, event, surface),
  });
}
