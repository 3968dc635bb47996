/**
 * The port between workflow logic (core) and wherever a run is shown (the command layer's thread).
 * Strategies decide who speaks and what they are asked; the io runs the turn, streams it under the
 * member's identity, stores every event before showing it, and keeps the run card current.
 */
import type { TurnFinishReason } from '../agent/agent-events.js';
import type { TurnUsage } from '../agent/agent-runner.js';
import type { Character } from '../data/types.js';
import type { Workspace } from '../tools/tool.js';
import type { ReasoningEffort } from '../model/language-model.js';
import type { RecordedDecision, RouteDecision, StatusReport, VoteCast } from './workflow-services.js';

export interface MemberTurnOutcome {
  character: Character;
  text: string;
  finishReason: TurnFinishReason;
  error?: Error;
  /** What the member reported through the tools this turn (the last call wins). */
  status?: StatusReport;
  route?: RouteDecision;
  vote?: VoteCast;
  /** What a /call moderator recorded with `record_decision` (the last call wins). */
  decision?: RecordedDecision;
  /** The turn's tokens (a /goal keeps its own per-step stats from them). */
  usage: TurnUsage;
  durationMs: number;
}

export interface MemberTurnRequest {
  character: Character;
  prompt: string;
  /** False for /call: no tools at all. */
  allowTools: boolean;
  /** Offer exactly these tools and no other, whatever the role allows (the /call moderator's `record_decision`). */
  onlyTools?: string[];
  /** Tools offered from the first round on top of the role's core tools (the role must allow them). */
  loadedTools?: string[];
  extraSystemPrompt?: string;
  /** The caller's reasoning effort for this turn (below the `/tsuka effort` pin, above character and role). */
  effort?: ReasoningEffort;
  /**
   * The jail of the turn's tools, and of any sub-agent it spawns: the run's workspace unless given
   * (a parallel /goal step works in its staging copy, design §6.6).
   */
  workspace?: Workspace;
  /** Where `execute_command` runs for this turn and its sub-agents (`services.cwd`); the workspace root unless given. */
  cwd?: string;
  /** The lines closing the member's message (status, degraded protocol), worked out from the outcome. */
  trailer?(outcome: MemberTurnOutcome): string[];
}

export interface WorkflowIo {
  /** Fires when the run is stopped. */
  readonly signal: AbortSignal;
  runMember(request: MemberTurnRequest): Promise<MemberTurnOutcome>;
  /** A message from the bot in the run's thread (round markers, fallbacks, tallies): stored, then posted. */
  announce(text: string): Promise<void>;
  /** What the run card shows as the current step. */
  activity(text: string): void;
}
