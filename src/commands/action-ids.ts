/** Button action ids shared by conversation turns, run cards and the command layer's router. */

/** The Stop button of a running turn or workflow run (its value is the run id). */
export const STOP_ACTION = 'tsuka_stop';
/** Adopt on a /call verdict card (value: the call's run id): saves the decision and writes its record. */
export const VERDICT_ADOPT_ACTION = 'tsuka_verdict_adopt';
/** Reopen on a /call verdict card (value: the call's run id): one more round, a new verdict. */
export const VERDICT_REOPEN_ACTION = 'tsuka_verdict_reopen';
