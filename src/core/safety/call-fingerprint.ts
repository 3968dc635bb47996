/**
 * The fingerprint of one risky call as it waits for a person: what the approval's signature binds
 * the decision to (approval-signature.ts). Two calls share a fingerprint only when they would do
 * exactly the same thing under the same rule: same tool, same arguments (canonical JSON: keys
 * sorted, so the model's key order does not matter), same risk and classifier reason, same grant
 * scope, same requester and the same people allowed to decide.
 */
import { createHash } from 'node:crypto';

export interface CallFingerprintInput {
  toolName: string;
  arguments?: unknown;
  riskLevel: string;
  /** The classifier's rule that made the call ask. */
  reason: string;
  grantScope?: string;
  requesterId?: string;
  /** Who may decide (approval-rule.ts). */
  approvers: string;
  /** The approval policy's rule and who it lets decide (issue 39): another rule, another fingerprint. */
  policy?: unknown;
}

/** JSON with object keys sorted at every depth; `undefined` members are left out as JSON does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const members = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${members.join(',')}}`;
}

/** `sha256:<hex>` of the call's fields in a fixed order. */
export function callFingerprint(call: CallFingerprintInput): string {
  const fields = canonicalJson([
    'call v1',
    call.toolName,
    call.arguments ?? null,
    call.riskLevel,
    call.reason,
    call.grantScope ?? null,
    call.requesterId ?? null,
    call.approvers,
    // Only under a policy rule, so the fingerprints of calls without one stay as they were.
    ...(call.policy === undefined ? [] : [call.policy]),
  ]);
  return `sha256:${createHash('sha256').update(fields).digest('hex')}`;
}
