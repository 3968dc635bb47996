/**
 * The /call and /team handlers for `createCommandLayer(deps, createWorkflows(deps))`. /goal is
 * wired separately when its pieces exist.
 */
import type { CommandDependencies } from '../command-dependencies.js';
import type { WorkflowHandlers, WorkflowServices } from '../create-command-layer.js';
import { handleCallCommand } from './call-command.js';
import { handleTeamCommand } from './team-command.js';

export interface WorkflowOptions {
  teamMaxRounds?: number;
  /** Least time between run-card edits. */
  cardIntervalMs?: number;
}

export function createWorkflows(deps: CommandDependencies, options: WorkflowOptions = {}): (services: WorkflowServices) => WorkflowHandlers {
  return (services) => ({
    call: (event, surface) => handleCallCommand(deps, services, event, surface, options),
    team: (event, surface) => handleTeamCommand(deps, services, event, surface, options),
  });
}
