import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDedupeStore, DEDUPE_DEFAULT_TTL_MS } from '../../../src/core/store/dedupe-store.js';
import { openStore } from '../../../src/core/store/open-store.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('dedupe store', () => {
  it('remembers event ids for at least 15 minutes by default', () => {
    expect(DEDUPE_DEFAULT_TTL_MS).toBeGreaterThanOrEqual(15 * 60 * 1000);
  });

  it('says true only for the first of many simultaneous deliveries', async () => {
    const dedupe = createDedupeStore(await openStore({ url: 'memory', dataDirectory: '/unused' }));
    const results = await Promise.all(Array.from({ length: 20 }, () => dedupe.markSeen('slack:Ev123')));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await dedupe.markSeen('slack:Ev124')).toBe(true);
    expect(await dedupe.markSeen('slack:Ev123')).toBe(false);
  });

  it('forgets an id once its TTL has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    const dedupe = createDedupeStore(await openStore({ url: 'memory', dataDirectory: '/unused' }), { ttlMs: 60_000 });
    expect(await dedupe.markSeen('e1')).toBe(true);
    vi.setSystemTime(new Date('2030-01-01T00:00:59Z'));
    expect(await dedupe.markSeen('e1')).toBe(false);
    vi.setSystemTime(new Date('2030-01-01T00:01:01Z'));
    expect(await dedupe.markSeen('e1')).toBe(true);
  });
});
