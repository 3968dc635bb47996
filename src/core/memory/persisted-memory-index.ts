/**
 * The port through which scope indexes outlive a process: snapshots of scope views, and a journal
 * of every change to the stored facts since. A backend that can record every change to the
 * `memory` namespace, whoever makes it, implements it (`sqlite-memory-index.ts`, with triggers);
 * without one the memory store reads a scope in full when it opens it.
 */
import { TsukaError } from '../errors.js';
import type { MemoryFact } from './memory-fact.js';

/** One fact written or deleted since a journal position: its value now (undefined when gone). */
export interface FactChange {
  id: string;
  fact: MemoryFact | undefined;
}

export interface JournalChanges {
  /** The journal position these changes bring a view to. */
  seq: number;
  changes: FactChange[];
  /** Changes up to here may have been dropped from the journal: a view older than this must open again. */
  prunedThrough: number;
}

export interface OpenedScope {
  /** The journal position now; a full read that starts after this is current as of it. */
  head: number;
  /** The newest snapshot of the scope, with the changes after it, when there is one. */
  snapshot?: { data: Uint8Array } & JournalChanges;
}

export interface PersistedMemoryIndex {
  /** Where it lives, for logs. */
  readonly location: string;
  /** The scope's snapshot and the changes after it, read together. `tag` prefixes its fact ids. */
  open(scope: string, tag: string): Promise<OpenedScope>;
  /** For each request, the changes to facts whose ids start with `tag` after position `seq` (one read). */
  changesSince(requests: readonly { tag: string; seq: number }[]): Promise<JournalChanges[]>;
  /** The stored facts with these ids, read together (ids not found are left out). */
  readFacts(ids: readonly string[]): Promise<Map<string, MemoryFact>>;
  /**
   * Keeps the snapshot `make` returns as the scope's (a newer one wins), and lets the journal drop
   * what every snapshot of the tag has absorbed. `make` runs after the current task, in the
   * background (at `close` at the latest); failures are logged, not thrown.
   */
  saveSnapshot(scope: string, tag: string, make: () => { seq: number; data: Uint8Array }): void;
  /**
   * Drops the snapshots of these scopes (their next open reads them in full and saves a new one):
   * after facts were rewritten outside the memory store, e.g. masked, so no old text stays in a snapshot.
   */
  dropSnapshots?(scopes: readonly string[]): Promise<void>;
  /** Waits for snapshots being saved and releases the backend. */
  close(): Promise<void>;
}

/** The persisted memory index could not be opened, read or written. */
export class MemoryIndexError extends TsukaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('memory_index_error', message, options);
  }
}
