/**
 * Stored approvals carry an HMAC-SHA256 over every field that decides or shows something (id, run,
 * tool call, the call's fingerprint, tool, risk, summary, requester, who may decide, prompt message,
 * times, status, decider, when it was used), keyed with a secret only the bot holds
 * (approval-key.ts). Whoever can write the store without the key — a command that reached a Redis,
 * a process that opened the SQLite file — cannot make a record that verifies; and a record that
 * verifies still decides only the call it names: the store refuses it under any other key, and the
 * waiting run compares its run, call and fingerprint with its own (approval-binding.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../safety/call-fingerprint.js';

/** The fields covered, in this order (a new version of the list gets a new tag). */
interface SignedFields {
  id: string;
  runId: string;
  toolCallId: string;
  /** The call's fingerprint (call-fingerprint.ts): tool, canonical arguments, risk, rule, who decides. */
  fingerprint?: string;
  toolName: string;
  riskLevel: string;
  summary: string;
  requesterId?: string;
  /** Who may decide (approval-rule.ts): rewriting it to `requester` must break the signature. */
  approvers?: string;
  /** The policy's rule, its members and count (issue 39), and the approvals counted so far. */
  policy?: unknown;
  approvedBy?: readonly string[];
  messageRef?: string;
  createdAt: number;
  expiresAt: number;
  status: string;
  decidedBy?: string;
  decidedAt?: number;
  /** When the decision released (or refused) its call: a record is used once. */
  consumedAt?: number;
  signature?: string;
}

const VERSION = 'v2';
/** Records written before fingerprints: they still verify (to be expired and shown), but bind no call. */
const LEGACY_VERSION = 'v1';

export interface ApprovalSigner {
  /** The signature of `record` as it would be stored (`v2.<base64url>`). */
  sign(record: SignedFields): string;
  /** Whether `record.signature` is this key's signature of exactly these fields. */
  verify(record: SignedFields): boolean;
}

function canonical(record: SignedFields, version: string): string {
  // JSON of an array: no field can run into the next, and absent optional fields are explicit.
  const common = [
    record.id,
    record.runId,
    record.toolCallId,
    record.toolName,
    record.riskLevel,
    record.summary,
    record.requesterId ?? null,
    record.approvers ?? null,
    record.messageRef ?? null,
    record.createdAt,
    record.expiresAt,
    record.status,
    record.decidedBy ?? null,
    record.decidedAt ?? null,
  ];
  if (version === LEGACY_VERSION) return JSON.stringify([version, ...common]);
  const v2 = [version, ...common, record.fingerprint ?? null, record.consumedAt ?? null];
  // Under a policy rule: its fields too (records without one sign exactly as before).
  if (record.policy === undefined && record.approvedBy === undefined) return JSON.stringify(v2);
  return JSON.stringify([...v2, canonicalJson(record.policy ?? null), record.approvedBy ?? null]);
}

export function createApprovalSigner(key: Uint8Array): ApprovalSigner {
  if (key.length < 32) throw new RangeError('An approval signing key has at least 32 bytes.');
  const mac = (record: SignedFields, version: string) => createHmac('sha256', key).update(canonical(record, version)).digest();
  return {
    sign: (record) => `${VERSION}.${mac(record, VERSION).toString('base64url')}`,
    verify(record) {
      const signature = record.signature;
      if (typeof signature !== 'string') return false;
      const version = signature.slice(0, signature.indexOf('.'));
      if (version !== VERSION && !(version === LEGACY_VERSION && record.fingerprint === undefined && record.consumedAt === undefined)) return false;
      const given = Buffer.from(signature.slice(version.length + 1), 'base64url');
      const expected = mac(record, version);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
