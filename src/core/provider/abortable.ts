/**
 * Small helpers to make waiting abortable: a delay that ends early when a signal fires, and a race
 * of any promise against a signal. Used so that Stop takes effect at once even when the transport
 * underneath is slow to notice.
 */

/** Waits `ms`, or rejects with the signal's reason as soon as it fires. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A promise that rejects with the signal's reason when it fires; never resolves. */
export function rejectOnAbort(signal: AbortSignal): Promise<never> {
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  // Whoever races against it observes the rejection; this keeps an unraced one from being reported.
  promise.catch(() => undefined);
  return promise;
}
