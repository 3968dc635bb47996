/**
 * What a /team run keeps after each completed round (pipeline: station) so that Resume, after a
 * restart, continues with the next round without asking the finished rounds' members again
 * (issue 25): the turns so far (what later prompts show of them) and what the next round builds on.
 */
import type { Character } from '../../data/types.js';
import type { RouteDecision, StatusReport, VoteCast } from '../workflow-services.js';
import type { TeamTurn } from './team-turn.js';

/** A turn's text longer than this is kept clipped: prompts show at most `CONTRIBUTIONS_BUDGET_CHARS` of it. */
const MAX_STORED_TEXT = 12_000;

/** One finished turn, as stored. */
export interface StoredTeamTurn {
  /** The member's character name. */
  agent: string;
  text: string;
  status: StatusReport;
  route?: RouteDecision;
  vote?: VoteCast;
}

export interface TeamCheckpoint {
  /** Rounds (pipeline: stations) completed; the run continues with the next one. */
  roundsDone: number;
  turns: StoredTeamTurn[];
  /** Hybrid: the change requests of the last vote, for the next work round. */
  changes?: string[];
  /**
   * Turns already taken in the round under way (`roundsDone + 1`), the last ones of `turns`: a
   * member that reported in it is not asked again on Resume (hybrid: its work turns; orchestrated: its workers').
   */
  inRound?: number;
}

export function storedTurn(turn: TeamTurn): StoredTeamTurn {
  const { text } = turn.outcome;
  return {
    agent: turn.outcome.character.name,
    text: text.length > MAX_STORED_TEXT ? `${text.slice(0, MAX_STORED_TEXT)}\n…(clipped)` : text,
    status: turn.status,
    ...(turn.route ? { route: turn.route } : {}),
    ...(turn.vote ? { vote: turn.vote } : {}),
  };
}

export function checkpointOf(roundsDone: number, turns: readonly TeamTurn[], changes?: readonly string[], inRound = 0): TeamCheckpoint {
  return {
    roundsDone,
    turns: turns.map(storedTurn),
    ...(changes && changes.length > 0 ? { changes: [...changes] } : {}),
    ...(inRound > 0 ? { inRound } : {}),
  };
}

/** Resume: the turns (already in `turns`) that `round` had when the run was cut off; none for any other round. */
export function turnsOfCutRound(checkpoint: TeamCheckpoint | undefined, round: number, turns: readonly TeamTurn[]): TeamTurn[] {
  const taken = checkpoint?.inRound ?? 0;
  if (taken === 0 || round !== (checkpoint?.roundsDone ?? 0) + 1) return [];
  return turns.slice(Math.max(0, turns.length - taken));
}

/** The stored turns back as the strategies know them; a turn of someone no longer in the team is dropped. */
export function restoredTurns(checkpoint: TeamCheckpoint | undefined, members: readonly Character[]): TeamTurn[] {
  if (!checkpoint) return [];
  const byName = new Map(members.map((member) => [member.name, member]));
  const turns: TeamTurn[] = [];
  for (const stored of checkpoint.turns) {
    const character = byName.get(stored.agent);
    if (!character) continue;
    turns.push({
      outcome: {
        character,
        text: stored.text,
        finishReason: 'stop',
        usage: { promptTokens: 0, completionTokens: 0, peakContextTokens: 0, modelCalls: 0, toolCalls: 0, modelTimeMs: 0 },
        durationMs: 0,
        status: stored.status,
        ...(stored.route ? { route: stored.route } : {}),
        ...(stored.vote ? { vote: stored.vote } : {}),
      },
      status: stored.status,
      degraded: [],
      ...(stored.route ? { route: stored.route } : {}),
      ...(stored.vote ? { vote: stored.vote } : {}),
    });
  }
  return turns;
}

/** How many turns each member has had, from the turns so far (for `maxRoundsPerMember`). */
export function turnCounts(turns: readonly TeamTurn[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const turn of turns) counts.set(turn.outcome.character.name, (counts.get(turn.outcome.character.name) ?? 0) + 1);
  return counts;
}
