/**
 * The last line of defence of `tsuka start`: a promise rejected where nobody awaits it (a
 * malformed envelope or gateway event inside an SDK's own async handler) is logged and dropped
 * instead of ending the process, which Node does by default. Synchronous uncaught exceptions
 * still end it: after one, the process state is unknown.
 */
import type { Logger } from '../core/logger.js';

/** Installs the guard; returns a function that removes it. */
export function installProcessGuard(logger: Logger, target: NodeJS.Process = process): () => void {
  const onRejection = (reason: unknown) => {
    logger.error('unhandled rejection dropped (the process keeps running)', { error: reason });
  };
  target.on('unhandledRejection', onRejection);
  return () => target.off('unhandledRejection', onRejection);
}
