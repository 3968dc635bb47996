/** The /call, /team and /goal handlers for `createCommandLayer(deps, createWorkflows(deps))`. */
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowHandlers, WorkflowServices } from '../workflow-handlers.js';
import { handleCallCommand } from './call-command.js';
import { handleGoalCommand } from './goal-command.js';
import { handleTeamCommand } from './team-command.js';

export interface WorkflowOptions {
  teamMaxRounds?: number;
  /** Least time between run-card edits. */
  cardIntervalMs?: number;
  /** Most steps the /goal planner is asked to use. */
  goalMaxSteps?: number;
}

export function createWorkflows(deps: CommandDependencies, options: WorkflowOptions = {}): (services: WorkflowServices) => WorkflowHandlers {
  return (services) => ({
    call: (event, surface) => handleCallCommand(deps, services, event, surface, options),
    team: (event, surface) => handleTeamCommand(deps, services, event, surface, options),
    goal: (event, surface) =>
      handleGoalCommand(deps, services, event, surface, {
        ...(options.cardIntervalMs !== undefined ? { cardIntervalMs: options.cardIntervalMs } : {}),
        ...(options.goalMaxSteps !== undefined ? { maxSteps: options.goalMaxSteps } : {}),
      }),
  });
}
