/**
 * The seam between the command layer and the workflows (/call, /team, /goal): the handlers the
 * workflows supply, and the services the command layer lends them. In a file of its own so that
 * neither side imports the other's module (no import cycle).
 */
import type { ChatSurface } from './chat-surface.js';
import type { ButtonActionEvent, SlashCommandEvent, ThreadMessageEvent } from './inbound-event.js';
import type { ApprovalFlow } from './approvals/approval-flow.js';
import type { ActiveRuns } from './runs/active-runs.js';
import type { PlanGates } from './workflows/goal/plan-gate.js';

/** Handlers of /call, /team and /goal, supplied once the workflows exist. */
export type WorkflowHandler = (event: SlashCommandEvent, surface: ChatSurface) => Promise<void>;
/** Buttons of finished runs (a /call verdict's Adopt and Reopen); false when the button is not theirs. */
export type WorkflowButtonHandler = (event: ButtonActionEvent, surface: ChatSurface) => Promise<boolean>;
export type WorkflowHandlers = Partial<Record<'call' | 'team' | 'goal', WorkflowHandler>> & {
  /** The Resume button of an interrupted workflow run (its value is the run id). */
  resume?: (event: ButtonActionEvent, surface: ChatSurface) => Promise<void>;
  button?: WorkflowButtonHandler;
  /** A reply in a finished run's thread that is theirs (a /call verdict's stated decision); false when it is not. */
  reply?: (event: ThreadMessageEvent, surface: ChatSurface) => Promise<boolean>;
};
/** What workflows get from the command layer: the same approvals and run registry as conversations. */
export interface WorkflowServices {
  approvals: ApprovalFlow;
  activeRuns: ActiveRuns;
  /** Plans waiting for Run plan / Edit / Cancel (/goal with `TSUKA_GOAL_CONFIRM`). */
  planGates?: PlanGates;
}
