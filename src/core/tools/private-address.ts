import { isIP } from 'node:net';

/** Host names that always mean "this machine or its cloud metadata", whatever DNS says. */
const LOCAL_HOST_NAMES: ReadonlySet<string> = new Set(['localhost', 'metadata.google.internal', 'metadata']);
const LOCAL_HOST_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'] as const;

/** IPv4 ranges (`[first octets, prefix length]`) that are not the public internet. */
const PRIVATE_IPV4_RANGES: readonly (readonly [number, number, number, number, number])[] = [
  [0, 0, 0, 0, 8],
  [10, 0, 0, 0, 8],
  [100, 64, 0, 0, 10],
  [127, 0, 0, 0, 8],
  [169, 254, 0, 0, 16],
  [172, 16, 0, 0, 12],
  [192, 0, 0, 0, 24],
  [192, 168, 0, 0, 16],
  [198, 18, 0, 0, 15],
  [224, 0, 0, 0, 4],
  [240, 0, 0, 0, 4],
];

/**
 * The literal half of the SSRF guard: true when a URL's host is a literal loopback, private,
 * link-local or metadata address, or a name reserved for local networks. Hosts are taken from
 * the WHATWG URL parser, which already normalises `http://2130706433/` and `0x7f.1` to
 * `127.0.0.1`. Public names that resolve to private addresses are caught by `web-risk.ts`.
 */
export function isPrivateUrl(url: URL): boolean {
  return isPrivateHost(url.hostname);
}

/** See `isPrivateUrl`; takes a bare host name (IPv6 with or without brackets). */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === '') return true;
  if (isIP(host.split('%')[0] ?? '') !== 0) return isPrivateAddress(host);
  if (LOCAL_HOST_NAMES.has(host)) return true;
  return LOCAL_HOST_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

/**
 * Whether an IP address (as a resolver returns it) is not on the public internet. Anything that
 * does not parse as an address counts as private: the guard fails closed.
 */
export function isPrivateAddress(address: string): boolean {
  const bare = (address.split('%')[0] ?? '').toLowerCase();
  const family = isIP(bare);
  if (family === 4) return isPrivateIpv4(bare);
  if (family === 6) return isPrivateIpv6(bare);
  return true;
}

function isPrivateIpv4(address: string): boolean {
  const octets = address.split('.').map(Number);
  const value = ((octets[0] ?? 0) << 24) | ((octets[1] ?? 0) << 16) | ((octets[2] ?? 0) << 8) | (octets[3] ?? 0);
  return PRIVATE_IPV4_RANGES.some(([a, b, c, d, prefix]) => {
    const base = (a << 24) | (b << 16) | (c << 8) | d;
    const mask = prefix === 0 ? 0 : ~0 << (32 - prefix);
    return (value & mask) === (base & mask);
  });
}

/** The eight 16-bit groups of a valid IPv6 address, a dotted IPv4 tail included. */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros: string[] = Array.from({ length: 8 - headGroups.length - tailGroups.length }, () => '0');
  return [...headGroups, ...zeros, ...tailGroups].map((group) => Number.parseInt(group, 16));
}

function ipv4From(high: number, low: number): string {
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

function isPrivateIpv6(address: string): boolean {
  const groups = ipv6Groups(address);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const zeroUpTo = (count: number): boolean => groups.slice(0, count).every((group) => group === 0);
  // IPv4-compatible (`::7f00:1`, also `::` and `::1`), IPv4-mapped (`::ffff:…`) and IPv4-translated (`::ffff:0:…`).
  if (zeroUpTo(6) || (zeroUpTo(5) && g5 === 0xffff) || (zeroUpTo(4) && g4 === 0xffff && g5 === 0)) {
    return isPrivateIpv4(ipv4From(g6, g7));
  }
  // NAT64: the well-known 64:ff9b::/96 carries an IPv4 address; the rest of 64:ff9b::/32 (64:ff9b:1::/48) is local use.
  if (g0 === 0x64 && g1 === 0xff9b) return g2 !== 0 || g3 !== 0 || g4 !== 0 || g5 !== 0 || isPrivateIpv4(ipv4From(g6, g7));
  if (g0 === 0x2002) return isPrivateIpv4(ipv4From(g1, g2)); // 6to4
  if (g0 === 0x2001 && g1 === 0) return isPrivateIpv4(ipv4From(g6 ^ 0xffff, g7 ^ 0xffff)); // Teredo client
  // fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 old site-local, ff00::/8 multicast.
  return (g0 & 0xfe00) === 0xfc00 || (g0 & 0xffc0) === 0xfe80 || (g0 & 0xffc0) === 0xfec0 || (g0 & 0xff00) === 0xff00;
}

/** Parses a model-supplied URL, accepting only http and https. */
export function parseWebUrl(raw: string): URL | undefined {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch (error) {
    // The URL constructor throws TypeError for anything unparsable: that is a "no".
    if (error instanceof TypeError) return undefined;
    throw error;
  }
}
