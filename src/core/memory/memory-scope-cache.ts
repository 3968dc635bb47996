/**
 * The in-process view of one memory scope: its facts, a BM25 index and duplicate keys, loaded from
 * the store once and then kept current by the writes of this process. A revision token per scope,
 * changed on every write, makes a process reload a scope that another process (say `tsuka ask`
 * beside the server) has written to.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { KeyValueNamespace } from '../store/key-value-namespace.js';
import type { Store } from '../store/open-store.js';
import { addDocument, createBm25Index, removeDocument, type Bm25Index } from './bm25.js';
import type { MemoryFact } from './memory-fact.js';
import { analyze, duplicateKey, tokenize } from './text-normalize.js';

export interface ScopeView {
  scope: string;
  facts: Map<string, MemoryFact>;
  index: Bm25Index;
  /** Duplicate key → fact id. */
  duplicates: Map<string, string>;
  /** Distinct terms per fact, for overlap checks. */
  termSets: Map<string, Set<string>>;
  revision: string | undefined;
}

export interface ScopeCache {
  readonly facts: KeyValueNamespace<MemoryFact>;
  /** The scope's current view, reloaded when another process has changed it. */
  load(scope: string): Promise<ScopeView>;
  /** Records in the view (and its index) a fact this process has written. */
  put(view: ScopeView, fact: MemoryFact): void;
  /** Replaces a fact whose searchable text (content, summary, tags) did not change: no re-indexing. */
  refresh(view: ScopeView, fact: MemoryFact): void;
  remove(view: ScopeView, id: string): void;
  /** Marks the scope changed for other processes; call after each write. */
  touch(view: ScopeView): Promise<void>;
  /** A new fact id; ids start with a tag of their scope so one scope is one key range. */
  newId(scope: string): string;
}

/** The 6-hex-digit tag of a scope that prefixes its fact ids. */
export function scopeTag(scope: string): string {
  return createHash('sha1').update(scope).digest('hex').slice(0, 6);
}

/** Text a fact is found by besides its content: its summary and tags. */
function extraSearchableText(fact: MemoryFact): string {
  return `${fact.summary}\n${fact.tags.join(' ')}`;
}

/** Creates the cache over the `memory` and `memory-revisions` namespaces. */
export function createScopeCache(store: Store): ScopeCache {
  const facts = store.namespace<MemoryFact>('memory');
  const revisions = store.namespace<string>('memory-revisions');
  const views = new Map<string, ScopeView>();
  const loading = new Map<string, Promise<ScopeView>>();

  const put = (view: ScopeView, fact: MemoryFact): void => {
    const previous = view.facts.get(fact.id);
    if (previous) {
      const previousKey = duplicateKey(previous.content);
      if (view.duplicates.get(previousKey) === fact.id) view.duplicates.delete(previousKey);
    }
    // The content is analysed once: its terms feed the index and the overlap check, its key the exact-duplicate map.
    const content = analyze(fact.content);
    view.facts.set(fact.id, fact);
    addDocument(view.index, fact.id, [...content.terms, ...tokenize(extraSearchableText(fact))]);
    view.termSets.set(fact.id, new Set(content.terms));
    view.duplicates.set(content.duplicateKey, fact.id);
  };

  const remove = (view: ScopeView, id: string): void => {
    const fact = view.facts.get(id);
    if (!fact) return;
    const key = duplicateKey(fact.content);
    if (view.duplicates.get(key) === id) view.duplicates.delete(key);
    view.facts.delete(id);
    view.termSets.delete(id);
    removeDocument(view.index, id);
  };

  return {
    facts,
    async load(scope) {
      const tag = scopeTag(scope);
      const revision = await revisions.get(tag);
      const cached = views.get(scope);
      if (cached && cached.revision === revision) return cached;
      const inFlight = loading.get(scope);
      if (inFlight) return inFlight;
      const loaded = readScope(scope, tag, revision).finally(() => loading.delete(scope));
      loading.set(scope, loaded);
      return loaded;
    },
    put,
    refresh(view, fact) {
      if (view.facts.has(fact.id)) view.facts.set(fact.id, fact);
    },
    remove,
    async touch(view) {
      const revision = randomBytes(6).toString('hex');
      await revisions.set(scopeTag(view.scope), revision);
      view.revision = revision;
    },
    newId(scope) {
      return `${scopeTag(scope)}-${randomBytes(4).toString('hex')}`;
    },
  };

  async function readScope(scope: string, tag: string, revision: string | undefined): Promise<ScopeView> {
    const view: ScopeView = {
      scope,
      facts: new Map(),
      index: createBm25Index(),
      duplicates: new Map(),
      termSets: new Map(),
      revision,
    };
    for await (const [, fact] of facts.entries(`${tag}-`)) {
      // Different scopes can share a tag; the fact's own scope decides.
      if (fact.scope === scope) put(view, fact);
    }
    views.set(scope, view);
    return view;
  }
}
