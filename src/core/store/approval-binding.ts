/**
 * What ties a stored decision to the one call that waits on it (issue 41): the record must sit
 * under its own key, name the waiting run and tool call, carry the call's fingerprint
 * (call-fingerprint.ts) and not have been used before. A signed record that fails any of these —
 * a real approval copied over another approval's key, replayed for a second identical call — is
 * refused as tampered: it denies, never decides.
 */

/** What the waiting run knows of its own call, never read from the store. */
export interface ApprovalExpectation {
  /** The approval id: the key the run created the record under. */
  id: string;
  runId: string;
  toolCallId: string;
  fingerprint: string;
}

/**
 * Why a record cannot decide the waiting call: its signature, its key, its run, its call, its
 * fingerprint (another tool, arguments, risk, rule or deciders), no fingerprint at all (written
 * before fingerprints), or it was used already.
 */
export type BindingProblem = 'signature' | 'key' | 'run' | 'call' | 'fingerprint' | 'unbound' | 'used';

/** The first way `record` fails to be the decision of the call `expected` describes; undefined when it is. */
export function bindingProblem(
  record: { id: string; runId: string; toolCallId: string; fingerprint?: string },
  expected: ApprovalExpectation,
): BindingProblem | undefined {
  if (record.id !== expected.id) return 'key';
  if (record.runId !== expected.runId) return 'run';
  if (record.toolCallId !== expected.toolCallId) return 'call';
  if (record.fingerprint === undefined) return 'unbound';
  if (record.fingerprint !== expected.fingerprint) return 'fingerprint';
  return undefined;
}

const WHY: Record<BindingProblem, string> = {
  signature: 'its signature does not match',
  key: 'it is a record of another approval, copied under this one',
  run: 'it was made for another run',
  call: 'it was made for another tool call',
  fingerprint: 'it was made for a different call (tool, arguments, risk, rule or who may decide)',
  unbound: 'it names no call',
  used: 'it was used already',
};

/** The problem in words, for the card, the log and the audit line. */
export const describeBindingProblem = (problem: BindingProblem): string => WHY[problem];
