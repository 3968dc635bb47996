/**
 * The audit trail (issue 21): who decided, exported, forgot, shared, pinned or reached into another
 * channel — when and where. Append-only and ordered by time; kept longer than runs
 * (`TSUKA_AUDIT_RETENTION_DAYS`). Callers append one typed entry; `tsuka audit` lists them.
 */

/** Where an audited action happened: the adapters' opaque ids, as runs record them. */
export interface AuditPlace {
  platform: string;
  channelId: string;
  threadId?: string;
}

interface AuditBase {
  /** Who did it (opaque user id, `slack:U1`); absent when TSUKA itself did (an approval that expired). */
  actor?: string;
  /** Where it was done: the run's thread for a decision, the channel a command was typed in. */
  where?: AuditPlace;
}

export type AuditApprovalDecision = 'approved' | 'approved-for-run' | 'denied' | 'expired';

/** A decision on an approval prompt (a click, a timeout, a stopped run). */
export interface AuditApprovalEntry extends AuditBase {
  type: 'approval';
  decision: AuditApprovalDecision;
  runId: string;
  tool: string;
  riskLevel: string;
  /** What the call would do, as the prompt showed it (masked like the prompt). */
  summary: string;
  requester?: string;
  /** The approval policy's rule the call met ("default" for the default; absent without a policy). */
  rule?: string;
  /** Who approved under an N-of-M rule, comma-separated (each a distinct member, never the requester). */
  approvedBy?: string;
  /**
   * Set when the stored decision was refused (a denial): `tampered` — a record forged, or a real
   * one copied or replayed onto this call; `why` says which. Tool, risk and summary are the waiting
   * call's own, never the record's.
   */
  refused?: 'tampered';
  why?: string;
}

/** A run's transcript uploaded into the channel it belongs to. */
export interface AuditExportEntry extends AuditBase {
  type: 'export';
  runId: string;
  format: 'md' | 'json';
}

/** An admin reaching a run of another channel: shown or sent to the admin alone, or stopped. */
export interface AuditAdminActionEntry extends AuditBase {
  type: 'admin-action';
  action: 'trace' | 'export' | 'stop';
  runId: string;
  /** The run's own place (`where` is where the admin typed the command). */
  runWhere: AuditPlace;
}

/** Memory changes by people (`/tsuka forget`, `pin`, `unpin`, `memory share`, a shared `save_memory`, an adopted /call verdict). */
export interface AuditMemoryEntry extends AuditBase {
  type: 'memory-forget' | 'memory-pin' | 'memory-unpin' | 'memory-share' | 'memory-decision';
  factId: string;
  /** The fact's scope, when the caller knows it. */
  scope?: string;
}

/** What callers append; the log adds `id` and `at`. */
export type AuditEntryInput = AuditApprovalEntry | AuditExportEntry | AuditAdminActionEntry | AuditMemoryEntry;

/** A stored entry: `id` orders the log (time first); `at` is epoch milliseconds. */
export type AuditEntry = AuditEntryInput & { id: string; at: number };

export type AuditEntryType = AuditEntryInput['type'];

/** The audit log port (the store's `audit` namespace by default, `store-audit-log.ts`). */
export interface AuditLog {
  /** Appends one entry (never replaces one) and resolves once it is stored. */
  append(entry: AuditEntryInput): Promise<AuditEntry>;
  /** Entries oldest first; `since` (epoch ms) keeps those at or after it. */
  list(options?: { since?: number }): Promise<AuditEntry[]>;
}
