/** Button action ids shared by conversation turns, run cards and the command layer's router. */

/** The Stop button of a running turn or workflow run (its value is the run id). */
export const STOP_ACTION = 'tsuka_stop';
/** Slack's own Stop on an agent session (`agent_session_stopped`): stops what runs in the event's thread. */
export const SESSION_STOP_ACTION = 'tsuka_session_stop';

/** The plan card of a /goal awaiting agreement (value: the run id): run it as shown, edit it, cancel it. */
export const RUN_PLAN_ACTION = 'tsuka_plan_run';
export const EDIT_PLAN_ACTION = 'tsuka_plan_edit';
export const CANCEL_PLAN_ACTION = 'tsuka_plan_cancel';

/** Continues an interrupted run in its thread after a restart (value: the run id). */
export const RESUME_ACTION = 'tsuka_resume';
/** Adopt on a /call verdict card (value: the call's run id): saves the decision and writes its record. */
export const VERDICT_ADOPT_ACTION = 'tsuka_verdict_adopt';
/** Reopen on a /call verdict card (value: the call's run id): one more round, a new verdict. */
export const VERDICT_REOPEN_ACTION = 'tsuka_verdict_reopen';
/** The menus under a finished reply (value: the reply's run id; the choice names a character or a server). */
export const SECOND_ASK_ACTION = 'tsuka_second_ask';
export const SECOND_RERUN_ACTION = 'tsuka_second_rerun';
/** Actions that start a model turn: counted by the per-user rate limit like a message (other clicks never are). */
export const TURN_STARTING_ACTIONS: ReadonlySet<string> = new Set([SECOND_ASK_ACTION, SECOND_RERUN_ACTION]);
/** The buttons of an approval card (value: the approval id). */
export const APPROVE_ACTION = 'tsuka_approve';
export const APPROVE_RUN_ACTION = 'tsuka_approve_run';
export const DENY_ACTION = 'tsuka_deny';
/** "Show whole file" on an approval card whose preview was cut (value: the approval id). */
export const SHOW_WHOLE_FILE_ACTION = 'tsuka_show_whole_file';
