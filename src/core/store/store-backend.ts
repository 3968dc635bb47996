/**
 * The storage beneath the keyv namespaces: one keyv adapter shared by every namespace, plus an
 * ordered prefix scan (keyv's own iterator pages with OFFSET and reads the adapter's single shared
 * `namespace` field, so it cannot serve several namespaces over one adapter).
 */
import type { KeyvStoreAdapter } from 'keyv';

export interface StoreBackend {
  /** Where the state lives, for messages: a file path, `memory`, or a URL without credentials. */
  readonly location: string;
  /** The keyv storage adapter every namespace shares. */
  readonly adapter: KeyvStoreAdapter | Map<string, unknown>;
  /** Raw stored entries (full key, serialized value) whose key starts with `prefix`, ordered by key. */
  scan(prefix: string): AsyncIterable<[string, string]>;
  close(): Promise<void>;
}

/** An in-process backend over a Map: unit tests, and nothing survives the process. */
export function createMemoryBackend(): StoreBackend {
  const map = new Map<string, unknown>();
  return {
    location: 'memory',
    adapter: map,
    async *scan(prefix) {
      const keys = [...map.keys()].filter((key) => key.startsWith(prefix)).sort();
      for (const key of keys) {
        const value = map.get(key);
        if (typeof value === 'string') yield [key, value];
      }
    },
    async close() {
      map.clear();
    },
  };
}

/** The smallest string greater than every string starting with `prefix` (for key-range scans). */
export function prefixUpperBound(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}
