/**
 * What a /team run keeps to be resumed after a restart (issue 25): the command text (the team and
 * task, parsed again on Resume) and the checkpoint of its last completed round. Kept in the store's
 * `team-runs` namespace under the run id, written at the start and after every round.
 */
import type { Store } from '../../../core/store/open-store.js';
import type { TeamCheckpoint } from '../../../core/workflows/team/team-checkpoint.js';

export interface TeamRunState {
  /** The `/team` text as given: `<team> <task>`. */
  commandText: string;
  /** Absent until a first round completes. */
  checkpoint?: TeamCheckpoint;
}

const namespace = (store: Store) => store.namespace<TeamRunState>('team-runs');

export const loadTeamState = (store: Store, runId: string): Promise<TeamRunState | undefined> => namespace(store).get(runId);

export async function saveTeamState(store: Store, runId: string, state: TeamRunState): Promise<void> {
  await namespace(store).set(runId, state);
}

/** The checkpoint with every text masked, as everything else a run stores. */
export function maskedCheckpoint(checkpoint: TeamCheckpoint, mask: (text: string) => string): TeamCheckpoint {
  return {
    ...checkpoint,
    turns: checkpoint.turns.map((turn) => ({
      ...turn,
      text: mask(turn.text),
      status: { ...turn.status, summary: mask(turn.status.summary), ...(turn.status.nextHint ? { nextHint: mask(turn.status.nextHint) } : {}) },
      ...(turn.route ? { route: { ...turn.route, reason: mask(turn.route.reason) } } : {}),
      ...(turn.vote ? { vote: { ...turn.vote, reason: mask(turn.vote.reason) } } : {}),
    })),
    ...(checkpoint.changes ? { changes: checkpoint.changes.map(mask) } : {}),
  };
}
