/** Picks the strategy of a team's mode. */
import type { TeamMode } from '../../data/types.js';
import { runHybrid } from './hybrid.js';
import { runOrchestrated } from './orchestrated.js';
import { runPipeline } from './pipeline.js';
import { runRoundRobin } from './round-robin.js';
import type { TeamOutcome, TeamRunContext, TeamStrategy } from './team-types.js';

const STRATEGIES: Record<TeamMode, TeamStrategy> = {
  orchestrated: runOrchestrated,
  'round-robin': runRoundRobin,
  pipeline: runPipeline,
  hybrid: runHybrid,
};

/** Runs the team's strategy to its outcome (stopped when the io's signal fires). */
export function runTeam(context: TeamRunContext): Promise<TeamOutcome> {
  return STRATEGIES[context.team.mode](context);
}
