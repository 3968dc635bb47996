import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { CallRisk } from './tool.js';
import { isPrivateAddress, isPrivateUrl, parseWebUrl } from './private-address.js';
import { ToolFailureError } from './tool-failure-error.js';

/** The reason the SSRF guard gives; approval prompts show it. */
export const PRIVATE_ADDRESS_REASON = 'reaches a private or local address';

/** How long the guard waits for DNS before falling back to the literal check. */
export const HOST_LOOKUP_TIMEOUT_MS = 2_000;

/** Resolves a host name to every address it has (the `dns.lookup(host, { all: true })` shape). */
export type HostLookup = (hostname: string) => Promise<readonly { address: string }[]>;

/** How the web tools resolve host names; tests inject `lookup` (there is no DNS in the sandbox). */
export interface WebGuardOptions {
  lookup?: HostLookup;
  lookupTimeoutMs?: number;
}

/** The system resolver, as the web tools' fetch will use it. */
export const systemHostLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true });

/**
 * The addresses `hostname` resolves to, or undefined when the lookup fails or takes longer than
 * the timeout: then only the literal check applies (fetch would most likely fail as well).
 */
async function resolveAddresses(hostname: string, options: WebGuardOptions): Promise<readonly { address: string }[] | undefined> {
  const lookup = options.lookup ?? systemHostLookup;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), options.lookupTimeoutMs ?? HOST_LOOKUP_TIMEOUT_MS);
    timer.unref();
  });
  // A failed lookup (ENOTFOUND, no resolver) is not evidence of a private target.
  const lookedUp = Promise.resolve(hostname)
    .then(lookup)
    .then(
      (addresses) => addresses,
      () => undefined,
    );
  try {
    return await Promise.race([lookedUp, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The private or local address `url` reaches: its literal host, or (for a name) any address the
 * name resolves to, such as `169.254.169.254.nip.io`. Undefined for a public target.
 */
export async function findPrivateTarget(url: URL, options: WebGuardOptions = {}): Promise<string | undefined> {
  if (isPrivateUrl(url)) return url.host;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(hostname) !== 0) return undefined;
  const addresses = await resolveAddresses(hostname, options);
  const privateAddress = addresses?.find((entry) => isPrivateAddress(entry.address));
  return privateAddress ? `${url.host} → ${privateAddress.address}` : undefined;
}

/**
 * Risk of a web call by its URL: DANGEROUS for private/local targets (literal or resolved) and
 * for anything that is not an http(s) URL (fail closed), otherwise `publicLevel`.
 */
export async function classifyWebUrl(raw: string, publicLevel: CallRisk, options: WebGuardOptions = {}): Promise<CallRisk> {
  const url = parseWebUrl(raw);
  if (!url) return { level: 'DANGEROUS', reason: 'not a valid http(s) URL' };
  const target = await findPrivateTarget(url, options);
  if (target !== undefined) return { level: 'DANGEROUS', reason: `${PRIVATE_ADDRESS_REASON} (${target})` };
  return publicLevel;
}

/**
 * A fetch that resolves every URL it is asked for (each redirect hop included) and refuses a
 * private target, for calls the person did not approve as private. The fetch itself resolves the
 * name again, so a name that changes its answer in between is not caught (no pinning).
 */
export function createGuardedFetch(fetchImplementation: typeof fetch, options: WebGuardOptions = {}): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const target = await findPrivateTarget(url, options);
    if (target !== undefined) throw new ToolFailureError(`${url.host} ${PRIVATE_ADDRESS_REASON} (${target}); refused`);
    return fetchImplementation(input, init);
  };
}
