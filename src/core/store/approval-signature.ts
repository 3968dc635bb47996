/**
 * Stored approvals carry an HMAC-SHA256 over every field that decides or shows something (id, run,
 * tool call, tool, risk, summary, requester, who may decide, prompt message, times, status, decider), keyed with a
 * secret only the bot holds (approval-key.ts). Whoever can write the store without the key — a
 * command that reached a Redis, a process that opened the SQLite file — cannot make a record that
 * verifies: the waiting run treats such a record as denied, never as decided by it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The fields covered, in this order (a new version of the list gets a new tag). */
interface SignedFields {
  id: string;
  runId: string;
  toolCallId: string;
  toolName: string;
  riskLevel: string;
  summary: string;
  requesterId?: string;
  /** Who may decide (approval-rule.ts): rewriting it to `requester` must break the signature. */
  approvers?: string;
  messageRef?: string;
  createdAt: number;
  expiresAt: number;
  status: string;
  decidedBy?: string;
  decidedAt?: number;
  signature?: string;
}

const VERSION = 'v1';

export interface ApprovalSigner {
  /** The signature of `record` as it would be stored (`v1.<base64url>`). */
  sign(record: SignedFields): string;
  /** Whether `record.signature` is this key's signature of exactly these fields. */
  verify(record: SignedFields): boolean;
}

function canonical(record: SignedFields): string {
  // JSON of an array: no field can run into the next, and absent optional fields are explicit.
  return JSON.stringify([
    VERSION,
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
  ]);
}

export function createApprovalSigner(key: Uint8Array): ApprovalSigner {
  if (key.length < 32) throw new RangeError('An approval signing key has at least 32 bytes.');
  const mac = (record: SignedFields) => createHmac('sha256', key).update(canonical(record)).digest();
  return {
    sign: (record) => `${VERSION}.${mac(record).toString('base64url')}`,
    verify(record) {
      const signature = record.signature;
      if (typeof signature !== 'string' || !signature.startsWith(`${VERSION}.`)) return false;
      const given = Buffer.from(signature.slice(VERSION.length + 1), 'base64url');
      const expected = mac(record);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
