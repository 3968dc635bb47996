/**
 * The start-time upgrade of stored memory to conversation scopes, run before the memory store opens:
 * - facts saved before scopes (scoped by workspace folder, or `global`) stay where they are and are
 *   read as shared facts: their scopes are found once and kept in the upgrade record;
 * - every stored fact's content, summary and tags pass through the secret masker once, in place.
 * Idempotent: a crash before the record is written runs it again, and masking masked text changes
 * nothing. With the record present, a start reads only it.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../logger.js';
import { SHARED_MEMORY_SCOPE, type MemoryFact } from '../memory/memory-fact.js';
import { scopeTag } from '../memory/memory-scope-cache.js';
import type { PersistedMemoryIndex } from '../memory/persisted-memory-index.js';
import type { Store } from '../store/open-store.js';
import { isConversationScope } from './conversation-scope.js';

/** Store namespace and key of the upgrade record. */
export const MEMORY_UPGRADE_NAMESPACE = 'memory-upgrades';
export const CONVERSATION_SCOPES_UPGRADE = 'conversation-scopes-v1';

export interface MemoryUpgradeRecord {
  /** Scopes of facts from before conversation scopes: read as shared. */
  legacyScopes: string[];
  /** Facts whose stored text the masker changed. */
  masked: number;
  at: number;
}

export interface MemoryUpgradeOptions {
  store: Store;
  maskSecrets(text: string): string;
  logger: Logger;
  /** The persisted index over the store, whose snapshots of rewritten scopes are dropped. */
  index?: PersistedMemoryIndex;
  now?: () => number;
}

const isFact = (value: unknown): value is MemoryFact => {
  const fact = value as Partial<MemoryFact> | null;
  return typeof fact === 'object' && fact !== null && typeof fact.scope === 'string' && typeof fact.content === 'string' && typeof fact.summary === 'string';
};

/** The fact with its text masked, or undefined when masking changes nothing. */
function maskedFact(fact: MemoryFact, mask: (text: string) => string): MemoryFact | undefined {
  const content = mask(fact.content);
  const summary = mask(fact.summary);
  const stored: unknown[] = Array.isArray(fact.tags) ? fact.tags : [];
  const tags = stored.map((tag) => (typeof tag === 'string' ? mask(tag) : tag)) as string[];
  const changed = content !== fact.content || summary !== fact.summary || tags.some((tag, position) => tag !== stored[position]);
  return changed ? { ...fact, content, summary, tags } : undefined;
}

/** Runs the upgrade once per store; returns the scopes to read as shared (besides `shared`). */
export async function upgradeMemoryToConversationScopes(options: MemoryUpgradeOptions): Promise<MemoryUpgradeRecord> {
  const records = options.store.namespace<MemoryUpgradeRecord>(MEMORY_UPGRADE_NAMESPACE);
  const done = await records.get(CONVERSATION_SCOPES_UPGRADE);
  if (done) return done;
  const facts = options.store.namespace<MemoryFact>('memory');
  const legacyScopes = new Set<string>();
  const rewrittenScopes = new Set<string>();
  const rewrites: [string, MemoryFact][] = [];
  for await (const [id, fact] of facts.entries()) {
    if (!isFact(fact)) continue;
    if (fact.scope !== SHARED_MEMORY_SCOPE && !isConversationScope(fact.scope)) legacyScopes.add(fact.scope);
    const next = maskedFact(fact, options.maskSecrets);
    if (next) rewrites.push([id, next]);
  }
  // Written after the listing, which then never reads a key range that is being rewritten.
  for (const [id, fact] of rewrites) {
    await facts.set(id, fact);
    rewrittenScopes.add(fact.scope);
  }
  const masked = rewrites.length;
  // Processes that read scopes in full see the rewrite by the scope's revision token; with the
  // persisted index its journal has it, and the old snapshot (with the old words) goes.
  const revisions = options.store.namespace<string>('memory-revisions');
  for (const scope of rewrittenScopes) await revisions.set(scopeTag(scope), randomBytes(6).toString('hex'));
  if (options.index?.location === options.store.location) await options.index.dropSnapshots?.([...rewrittenScopes]);
  const record: MemoryUpgradeRecord = { legacyScopes: [...legacyScopes].sort(), masked, at: (options.now ?? Date.now)() };
  await records.set(CONVERSATION_SCOPES_UPGRADE, record);
  // A fresh install has nothing to upgrade: that is no news at a start (issue 40).
  const log = record.legacyScopes.length === 0 && masked === 0 ? options.logger.debug : options.logger.info;
  log.call(options.logger, 'memory upgraded to conversation scopes', { legacyScopes: record.legacyScopes.length, masked });
  return record;
}
