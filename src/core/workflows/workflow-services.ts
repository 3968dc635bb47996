/**
 * What coordination tools find in `context.services.workflow`: run-scoped state (the blackboard,
 * the inbox), the current member's sinks for status, route and vote, and the sub-agent spawner.
 * One object per member turn; the blackboard and inbox are shared by the run's members only.
 */
import type { ToolContext } from '../tools/tool.js';
import type { Blackboard } from './blackboard.js';
import type { MemberInbox } from './member-inbox.js';

export type TurnStatus = 'COMPLETED' | 'CONTINUE' | 'FAILED';
export type Vote = 'APPROVE' | 'CHANGE' | 'REJECT';

export interface StatusReport {
  status: TurnStatus;
  summary: string;
  nextHint?: string;
}

export interface RouteDecision {
  /** A member name, or `END`. */
  agent: string;
  reason: string;
}

export interface VoteCast {
  vote: Vote;
  reason: string;
}

/** What a /call moderator records with `record_decision` (the tool path of the decision, before any text fallback). */
export interface RecordedDecision {
  decision: string;
  options: string[];
  votes: { participant: string; vote: Vote; reason?: string }[];
}

export interface SpawnRequest {
  task: string;
  roleName?: string;
  charName?: string;
}

/** Runs an isolated sub-agent to completion and returns its report; throws when it may not. */
export type SubAgentSpawner = (request: SpawnRequest, context: ToolContext) => Promise<string>;

/** The workflow state one member turn sees through its tools. */
export interface WorkflowToolService {
  /** The run these tools belong to. */
  runId: string;
  /** Sub-agent nesting: 0 for members, 1 for their sub-agents, and so on. */
  depth: number;
  blackboard: Blackboard;
  inbox: MemberInbox;
  /** The run's member names (file ids), for `send_message` targets. */
  members: readonly string[];
  /**
   * The most tools this agent may hand on to a sub-agent. Absent for members: their character's
   * active role's `allowedTools` apply. Set for sub-agents, so a deeper spawn cannot widen it.
   */
  toolCeiling?: readonly string[];
  reportStatus(report: StatusReport): void;
  routeNext(decision: RouteDecision): void;
  castVote(vote: VoteCast): void;
  /** The /call moderator's `record_decision`; absent where no decision is being taken. */
  recordDecision?(decision: RecordedDecision): void;
  spawn?: SubAgentSpawner;
}

/** Where `request_*` starts a new run after approval; only present outside workflows. */
export interface EscalationService {
  start(request: EscalationRequest, context: ToolContext): Promise<string>;
}

export type EscalationRequest =
  | { kind: 'goal'; objective: string; reason: string }
  | { kind: 'team'; team: string; task: string; reason: string }
  | { kind: 'call'; participants: string[]; topic: string; reason: string };

/** The deepest sub-agent level: a sub-agent at this depth may not spawn another. */
export const MAX_SPAWN_DEPTH = 2;

function isWorkflowService(value: unknown): value is WorkflowToolService {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<WorkflowToolService>;
  return typeof candidate.runId === 'string' && typeof candidate.reportStatus === 'function' && typeof candidate.blackboard === 'object';
}

/** The workflow service of this call, or undefined outside a workflow. */
export function workflowServiceOf(context: ToolContext): WorkflowToolService | undefined {
  const value = context.services.workflow;
  return isWorkflowService(value) ? value : undefined;
}

/** The escalation service, when whoever runs the agent offers one. */
export function escalationServiceOf(context: ToolContext): EscalationService | undefined {
  const value = context.services.escalation;
  if (typeof value !== 'object' || value === null) return undefined;
  return typeof (value as Partial<EscalationService>).start === 'function' ? (value as EscalationService) : undefined;
}
