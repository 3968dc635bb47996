/** What every /team strategy receives and returns. */
import type { AcceptanceCheck, Character, Team } from '../../data/types.js';
import type { WorkflowIo } from '../workflow-io.js';
import type { AcceptanceResult } from './acceptance.js';
import type { TeamCheckpoint } from './team-checkpoint.js';

/** Default number of rounds when the team sets none (`teamMaxRounds`). */
export const DEFAULT_TEAM_MAX_ROUNDS = 3;
/** Default attempts per pipeline station. */
export const DEFAULT_STATION_ATTEMPTS = 2;

export interface TeamRunContext {
  io: WorkflowIo;
  team: Team;
  /** The team's members, resolved, in the team's order. */
  members: Character[];
  task: string;
  /** `teamMaxRounds` from the settings, for teams that set no `rounds`. */
  maxRounds: number;
  checkAcceptance(checks: readonly AcceptanceCheck[]): Promise<AcceptanceResult>;
  /** A digest of the workspace's files right now: equal digests mean nothing changed (pipeline stalls). */
  workspaceFingerprint(): Promise<string>;
  /** Resume: what an earlier attempt completed; the strategy starts with the next round (pipeline: station). */
  resumeFrom?: TeamCheckpoint;
  /** Called after each completed round (pipeline: station) that does not end the run: the state Resume continues from. */
  onRoundEnd?(checkpoint: TeamCheckpoint): Promise<void>;
  /** Called after each member's work turn within a round: the state Resume continues from, that turn included. */
  onTurnEnd?(checkpoint: TeamCheckpoint): Promise<void>;
}

export type TeamOutcomeStatus = 'completed' | 'failed' | 'stopped' | 'incomplete';

export interface TeamOutcome {
  status: TeamOutcomeStatus;
  summary: string;
}

export type TeamStrategy = (context: TeamRunContext) => Promise<TeamOutcome>;

export const stoppedOutcome = (): TeamOutcome => ({ status: 'stopped', summary: 'Stopped by request.' });
