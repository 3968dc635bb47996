/** Button action ids shared by conversation turns, run cards and the command layer's router. */

/** The Stop button of a running turn or workflow run (its value is the run id). */
export const STOP_ACTION = 'tsuka_stop';
