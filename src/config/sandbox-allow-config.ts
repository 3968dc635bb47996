/**
 * `TSUKA_SANDBOX_ALLOW` (issue 41): what the sandbox's user-mode network may reach among the host's
 * own addresses and the private ranges it refuses by default — a comma-separated list of `host`,
 * `host:port` or `ip:port` (`git.example.com,db.internal:5432`). Names are resolved when the sandbox
 * is chosen at start.
 */
import { isIP } from 'node:net';
import type { SandboxAllowEntry } from '../core/safety/sandbox-reach.js';

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*\.?$/i;
const HOW = 'use host, host:port or ip:port separated by commas, e.g. TSUKA_SANDBOX_ALLOW=git.example.com,db.internal:5432';

/** Why an entry cannot be allowed, or undefined. */
function refusal(host: string, port: string | undefined): string | undefined {
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return `"${port}" is not a port number`;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) return `port ${port} is outside 1–65535`;
  if (host.includes('/')) return 'address ranges are not supported: list the addresses';
  if (isIP(host) === 6 || host.startsWith('[')) return "IPv6 is not routed inside the sandbox's user-mode network: give an IPv4 address or a name";
  if (isIP(host) === 4) {
    const [first, second, third] = host.split('.').map(Number);
    if (first === 127)
      return 'the sandbox\'s 127.0.0.1 is its own (the host\'s loopback stays closed): use TSUKA_SANDBOX_NETWORK=host or a role\'s "network": "host"';
    if (first === 0) return 'not an address a command can reach';
    if (first === 10 && second === 0 && third === 2) return "10.0.2.0/24 is the sandbox's own user-mode network";
    if (first !== undefined && first >= 224) return 'multicast and reserved addresses cannot be allowed';
    return undefined;
  }
  if (/^localhost\.?$/i.test(host))
    return 'the sandbox\'s localhost is its own (the host\'s loopback stays closed): use TSUKA_SANDBOX_NETWORK=host or a role\'s "network": "host"';
  if (!HOST_NAME.test(host)) return 'not a host name or IPv4 address';
  return undefined;
}

/** The entries, in order and without duplicates; each invalid one is a problem naming it. */
export function readSandboxAllow(raw: string | undefined, problems: string[]): SandboxAllowEntry[] {
  const entries: SandboxAllowEntry[] = [];
  const seen = new Set<string>();
  for (const text of (raw ?? '').split(',').map((entry) => entry.trim())) {
    if (text === '') continue;
    const colons = text.split(':').length - 1;
    // More than one colon: an IPv6 address (with or without brackets and a port).
    const [host, port] = colons === 1 ? (text.split(':') as [string, string]) : [text, undefined];
    const why = colons > 1 ? refusal(host.startsWith('[') ? host : `[${host}]`, undefined) : refusal(host, port);
    if (why !== undefined) {
      problems.push(`TSUKA_SANDBOX_ALLOW entry "${text}" is not valid: ${why}; ${HOW}.`);
      continue;
    }
    const entry = { host: host.toLowerCase().replace(/\.$/, ''), ...(port === undefined ? {} : { port: Number(port) }) };
    const key = `${entry.host}:${entry.port ?? ''}`;
    if (!seen.has(key)) entries.push(entry);
    seen.add(key);
  }
  return entries;
}
