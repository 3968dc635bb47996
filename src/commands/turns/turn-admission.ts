/**
 * Turns begin one per event-loop iteration, in order of arrival. A burst of mentions would otherwise
 * set up every turn in the same iteration, and the loop would stall for the sum of them.
 */
let tail: Promise<void> = Promise.resolve();

/** Resolves once the turns admitted before this one have begun, on a later loop iteration. */
export function admitTurn(): Promise<void> {
  const admitted = tail.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  tail = admitted;
  return admitted;
}
