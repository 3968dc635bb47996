import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPlaygroundPersistence } from '../../../src/adapters/playground/persistence.js';
import type { PlaygroundMessage } from '../../../src/adapters/playground/state.js';
import type { KeyValueNamespace } from '../../../src/core/store/key-value-namespace.js';
import { createMemoryLogger } from '../../../src/core/logger.js';

function memoryNamespace<T>(): KeyValueNamespace<T> & { written: Map<string, T> } {
  const written = new Map<string, T>();
  return {
    name: 'playground',
    written,
    get: async (key) => written.get(key),
    set: async (key, value) => void written.set(key, value),
    delete: async (key) => written.delete(key),
    has: async (key) => written.has(key),
    async *entries() {
      yield* [...written.entries()].sort(([a], [b]) => a.localeCompare(b));
    },
    update: async (key, fn) => {
      const value = fn(written.get(key));
      written.set(key, value);
      return value;
    },
    purgeExpired: async () => 0,
  };
}

const message = (id: string, text: string, thread?: string) =>
  ({
    id,
    channel: 'general',
    thread,
    text,
    createdAt: Number(id.slice(1)),
    buttons: [],
    author: { kind: 'user', name: 'you' },
  }) as unknown as PlaygroundMessage;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('playground persistence', () => {
  it('a reply that streams for minutes does not hold back the question and the reply: both are written within a second', async () => {
    const namespace = memoryNamespace<never>();
    const persistence = createPlaygroundPersistence(namespace, { logger: createMemoryLogger() });
    persistence.record({ kind: 'message', message: message('m1', '@geordi explain everything') });
    // The reply grows every 100 ms, for 30 s: before, the quiet-time wait was pushed back at each
    // edit, nothing was written, and after a crash the thread (and its "interrupted" notice) was gone.
    let text = 'Partial';
    for (let tick = 0; tick < 300; tick++) {
      text += ' lorem';
      persistence.record({ kind: 'message', message: message('m2', text, 'm1') });
      await vi.advanceTimersByTimeAsync(100);
      if (tick === 15) {
        expect(namespace.written.has('message:m1')).toBe(true);
        expect(namespace.written.has('message:m2')).toBe(true);
      }
    }
    const history = await persistence.load();
    expect(history.messages.map((kept) => kept.id)).toEqual(['m1', 'm2']);
    expect(history.messages[1]!.text.length).toBeGreaterThan(text.length - 6 * 12);
  });
});
