/**
 * Buttons routed by their action id (issue 36): each id names the one handler it belongs to, so a
 * click goes straight there instead of being offered to every handler in turn; an id no handler
 * owns (a button of an older version, a forged payload) gets the stale-button answer.
 */
import {
  APPROVE_ACTION,
  APPROVE_RUN_ACTION,
  CANCEL_PLAN_ACTION,
  DENY_ACTION,
  EDIT_PLAN_ACTION,
  RESUME_ACTION,
  RUN_PLAN_ACTION,
  SECOND_ASK_ACTION,
  SECOND_RERUN_ACTION,
  SESSION_STOP_ACTION,
  SHOW_WHOLE_FILE_ACTION,
  STOP_ACTION,
  VERDICT_ADOPT_ACTION,
  VERDICT_REOPEN_ACTION,
} from './action-ids.js';

/** Who handles a button: approvals, the /goal plan card, Resume, the second-opinion menus, Stop, a workflow's verdict card. */
export type ButtonOwner = 'approvals' | 'plan' | 'resume' | 'second-opinion' | 'session-stop' | 'stop' | 'workflow';

export const BUTTON_OWNERS: Readonly<Record<string, ButtonOwner>> = {
  [APPROVE_ACTION]: 'approvals',
  [APPROVE_RUN_ACTION]: 'approvals',
  [DENY_ACTION]: 'approvals',
  [SHOW_WHOLE_FILE_ACTION]: 'approvals',
  [RUN_PLAN_ACTION]: 'plan',
  [EDIT_PLAN_ACTION]: 'plan',
  [CANCEL_PLAN_ACTION]: 'plan',
  [RESUME_ACTION]: 'resume',
  [SECOND_ASK_ACTION]: 'second-opinion',
  [SECOND_RERUN_ACTION]: 'second-opinion',
  [SESSION_STOP_ACTION]: 'session-stop',
  [STOP_ACTION]: 'stop',
  [VERDICT_ADOPT_ACTION]: 'workflow',
  [VERDICT_REOPEN_ACTION]: 'workflow',
};

/** The handler an action id belongs to; undefined for an id nobody owns. */
export function buttonOwner(actionId: string): ButtonOwner | undefined {
  return Object.hasOwn(BUTTON_OWNERS, actionId) ? BUTTON_OWNERS[actionId] : undefined;
}
