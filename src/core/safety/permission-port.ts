/**
 * The permission port: how the core asks a person before a risky tool call runs.
 * Chat adapters answer with buttons, the CLI with `--yes`; with no port attached, everything
 * that is not SAFE is denied (fail closed).
 */
import type { RiskLevel } from '../tools/tool.js';

export interface PermissionRequest {
  /** Unique per tool call; the approval record and its buttons are keyed on it. */
  id: string;
  runId: string;
  toolCallId: string;
  toolName: string;
  riskLevel: Exclude<RiskLevel, 'SAFE'>;
  /** Why the call needs approval (the classifier's reason). */
  reason: string;
  summary: string;
  details: string[];
  /** The agent asking. */
  agentName: string;
  /** Opaque platform user id of whoever started the run (`slack:U123`); only they or an admin may decide. */
  requesterId?: string;
  /** Whether "approve for this run" may be offered (RESTRICTED only). */
  allowForRun: boolean;
  /** Decided for this call only, never covered by "Approve for this run" (a network call after untrusted text: issue 41). */
  decideOnce?: true;
  /**
   * What "approve for this run" covers: later RESTRICTED calls of the same tool with the same
   * scope (execute_command: `npm test`, `git add`, `mkdir`…). Absent: every call of the tool.
   */
  grantScope?: string;
  /**
   * The call's arguments as they will run (validated). With the rest of the request they make the
   * call's fingerprint (call-fingerprint.ts), which a stored decision must match to release it.
   */
  arguments?: unknown;
}

export type PermissionOutcome = 'approved' | 'approved-for-run' | 'denied' | 'expired';

export interface PermissionDecision {
  outcome: PermissionOutcome;
  /** Opaque user id of whoever decided, when a person did. */
  decidedBy?: string;
  /** Shown to the agent on denial. */
  note?: string;
  /**
   * Set by a prompt that shows its decision (the chat card): the gate calls it once with what it
   * finally decided for this call — an approval that a stop overtook is denied — so that the card
   * says "Approved" only for a call the gate let go on.
   */
  confirm?(outcome: PermissionOutcome): void;
}

export interface PermissionPrompt {
  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionDecision>;
}
