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
 * The SSRF guard of the web tools: true when a URL's host is a literal loopback, private,
 * link-local or metadata address, or a name reserved for local networks. Hosts are taken from
 * the WHATWG URL parser, which already normalises `http://2130706433/` and `0x7f.1` to
 * `127.0.0.1`. Public names that resolve to private addresses are not caught here (no DNS).
 */
export function isPrivateUrl(url: URL): boolean {
  return isPrivateHost(url.hostname);
}

/** See `isPrivateUrl`; takes a bare host name (IPv6 with or without brackets). */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === '') return true;
  const family = isIP(host);
  if (family === 4) return isPrivateIpv4(host);
  if (family === 6) return isPrivateIpv6(host);
  if (LOCAL_HOST_NAMES.has(host)) return true;
  return LOCAL_HOST_SUFFIXES.some((suffix) => host.endsWith(suffix));
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

function isPrivateIpv6(address: string): boolean {
  if (address === '::' || address === '::1') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped?.[1]) return isPrivateIpv4(mapped[1]);
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (hexMapped?.[1] && hexMapped[2]) {
    const high = Number.parseInt(hexMapped[1], 16);
    const low = Number.parseInt(hexMapped[2], 16);
    return isPrivateIpv4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  const first = Number.parseInt(address.split(':')[0] || '0', 16);
  // fc00::/7 unique-local, fe80::/10 link-local, ff00::/8 multicast.
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00;
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
