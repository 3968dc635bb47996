/**
 * Politeness of the web tools toward each site: at most HOST_CONCURRENCY requests to one host at a
 * time from this process (browse_url, web_search and download_file together; redirect hops count
 * for the host they go to), the rest waiting their turn in order. A Bottleneck limiter per host
 * (decision 16): its model — a queue per key with a concurrency cap — is exactly this one.
 * A request holds its place until the response's headers arrive; reading the body does not.
 * Bottleneck is loaded with the first web request, so `tsuka ask` without one never loads it.
 */
import type Bottleneck from 'bottleneck';

export const HOST_CONCURRENCY = 2;

let hosts: Promise<Bottleneck.Group> | undefined;
const hostGroup = (): Promise<Bottleneck.Group> =>
  (hosts ??= import('bottleneck').then(({ default: Limiter }) => new Limiter.Group({ maxConcurrent: HOST_CONCURRENCY })));

/** Runs `request` when `host` has a free place; a request whose signal aborted while it waited does not start. */
export async function politelyTo<T>(host: string, signal: AbortSignal, request: () => Promise<T>): Promise<T> {
  const group = await hostGroup();
  return group.key(host.toLowerCase()).schedule(() => {
    signal.throwIfAborted();
    return request();
  });
}
