import { TsukaError } from '../errors.js';

/**
 * A tool could not do what it was asked (file missing, no match, HTTP error, refused target).
 * The registry turns it into an `isError` result whose message the model reads and can act on.
 */
export class ToolFailureError extends TsukaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('tool_failed', message, options);
  }
}
