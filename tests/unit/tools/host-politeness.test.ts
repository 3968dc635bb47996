/**
 * The web tools are polite to each site: however many calls an agent (or several runs) makes at
 * once, one host sees at most HOST_CONCURRENCY requests from the bot at a time; another host is not
 * held up by it, and an aborted call that was waiting never reaches the site.
 */
import { describe, expect, it } from 'vitest';
import { openUrl } from '../../../src/core/tools/fetch-limited.js';
import { HOST_CONCURRENCY } from '../../../src/core/tools/host-politeness.js';

/** A fetch whose responses the test releases one by one; it counts requests open per host. */
function heldFetch() {
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  const releases: (() => void)[] = [];
  const releaseHost: string[] = [];
  const started: string[] = [];
  let onStart: (() => void) | undefined;
  const fetch = (async (input: URL | string) => {
    const host = new URL(String(input)).host;
    open.set(host, (open.get(host) ?? 0) + 1);
    most.set(host, Math.max(most.get(host) ?? 0, open.get(host)!));
    started.push(host);
    onStart?.();
    await new Promise<void>((resolve) => {
      releases.push(resolve);
      releaseHost.push(host);
    });
    open.set(host, open.get(host)! - 1);
    return new Response('ok', { status: 200 });
  }) as typeof globalThis.fetch;
  /** Resolves once `count` requests have started in all. */
  const startedCount = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (started.length >= count) resolve();
      };
      onStart = check;
      check();
    });
  /** Lets the oldest open request to `host` answer. */
  const releaseOldest = (host: string) => {
    const index = releaseHost.indexOf(host);
    releaseHost.splice(index, 1);
    releases.splice(index, 1)[0]?.();
  };
  const releaseAll = () => {
    releaseHost.splice(0);
    for (const release of releases.splice(0)) release();
  };
  return { fetch, most, started, releaseOldest, releaseAll, startedCount };
}

const options = (fetch: typeof globalThis.fetch, signal = new AbortController().signal) => ({ fetch, timeoutMs: 30_000, signal, allowPrivate: false });

describe('per-host politeness of the web tools', () => {
  it(`sends one host at most ${HOST_CONCURRENCY} requests at a time, the rest in turn; another host goes on`, async () => {
    const held = heldFetch();
    const calls = [1, 2, 3, 4].map((n) => openUrl(new URL(`https://docs.example.org/page-${n}`), options(held.fetch)));
    const other = openUrl(new URL('https://other.example.net/'), options(held.fetch));
    // The other host's request starts although docs.example.org is full.
    await held.startedCount(HOST_CONCURRENCY + 1);
    expect(held.started.filter((host) => host === 'other.example.net')).toHaveLength(1);
    expect(held.started.filter((host) => host === 'docs.example.org')).toHaveLength(HOST_CONCURRENCY);
    // Each finished request lets the next one go.
    for (let next = HOST_CONCURRENCY + 2; next <= 5; next++) {
      held.releaseOldest('docs.example.org');
      await held.startedCount(next);
    }
    held.releaseAll();
    await Promise.all([...calls, other]);
    expect(held.most.get('docs.example.org')).toBe(HOST_CONCURRENCY);
    expect(held.started).toHaveLength(5);
  });

  it('a call stopped while it waited for its turn never reaches the site', async () => {
    const held = heldFetch();
    const first = [1, 2].map((n) => openUrl(new URL(`https://slow.example.org/${n}`), options(held.fetch)));
    const stop = new AbortController();
    const waiting = openUrl(new URL('https://slow.example.org/3'), options(held.fetch, stop.signal));
    await held.startedCount(HOST_CONCURRENCY);
    stop.abort();
    held.releaseAll();
    await Promise.all(first);
    await expect(waiting).rejects.toThrow(/Stopped/);
    expect(held.started).toHaveLength(HOST_CONCURRENCY);
  });
});
