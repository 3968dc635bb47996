import { AbortedError } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * Settles with `promise`, or rejects with `AbortedError` as soon as `signal` aborts, so that a
 * tool or an approval that ignores the signal cannot hold the turn. A late failure of the
 * abandoned promise is logged, never left unhandled.
 */
export function raceWithAbort<T>(promise: Promise<T>, signal: AbortSignal, logger: Logger, what: string): Promise<T> {
  if (signal.aborted) {
    promise.catch((error: unknown) => logger.debug(`${what} failed after the turn was stopped`, { error }));
    return Promise.reject(new AbortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch((error: unknown) => logger.debug(`${what} failed after the turn was stopped`, { error }));
      reject(new AbortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
