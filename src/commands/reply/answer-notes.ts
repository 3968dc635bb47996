/**
 * The words TSUKA says, in its own voice, when a turn ends without a whole answer: the thread shows
 * them under the reply, `tsuka ask` prints them as one line on stderr. One place, so both say the same.
 */

/** A reply stopped by the model's output-token limit (`finish_reason: "length"`). */
export const CUT_ANSWER_NOTE = "The answer reached the model's output limit and was cut.";

/** A turn that ended normally with no text at all. */
export const EMPTY_ANSWER_TEXT = 'no answer: the model returned nothing';
