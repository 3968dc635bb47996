/**
 * What the user-mode network refuses (issue 41): slirp4netns connects from the host's own network
 * namespace, so without this a sandboxed command reaches every service bound to `0.0.0.0`, `[::]`
 * or one of the host's addresses (a model server, Redis, the bot's own port) and the whole LAN.
 *
 * Inside the sandbox's network namespace, before bwrap starts, `prohibit` routes cover the private
 * ranges and the host's own addresses (read at each command, in the host's namespace, so an address
 * that appeared after the start is covered too). `TSUKA_SANDBOX_ALLOW` entries get policy rules
 * (`ip rule … to ADDRESS [ipproto tcp|udp dport PORT] lookup 100`) to a table whose only route is
 * slirp4netns' gateway: an entry with a port opens that TCP/UDP port only. The command itself has
 * no CAP_NET_ADMIN over that namespace (bwrap drops every capability, and a namespace the command
 * makes itself does not own this one), so it cannot take the routes or rules away.
 */
import { promises as dns } from 'node:dns';

/** slirp4netns' gateway (the host side; its loopback is refused by `--disable-host-loopback`). */
export const USER_NETWORK_GATEWAY = '10.0.2.2';
/** slirp4netns' own network (gateway, DNS forwarder, the sandbox's address): stays reachable. */
export const USER_NETWORK_CIDR = '10.0.2.0/24';
/** The routing table the allow-list's rules point to. */
const ALLOW_TABLE = 100;
const ALLOW_RULE_PREFERENCE = 100;

/** Refused by default: private, shared, link-local and "this network" ranges, IPv4 and IPv6. */
export const REFUSED_RANGES = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
  'fc00::/7',
  'fe80::/10',
] as const;

/** One `TSUKA_SANDBOX_ALLOW` entry as configured: `host`, `host:port` or `ip:port`. */
export interface SandboxAllowEntry {
  host: string;
  port?: number;
}

/** An entry with the IPv4 addresses its host had when the sandbox was chosen. */
export interface ResolvedAllowEntry extends SandboxAllowEntry {
  addresses: string[];
  /** Why it resolved to nothing (then it allows nothing). */
  error?: string;
}

/** `host:port` or `host`, as written in the setting. */
export function allowEntryText(entry: SandboxAllowEntry): string {
  return entry.port === undefined ? entry.host : `${entry.host}:${entry.port}`;
}

/** Resolves each entry's host (IPv4: the sandbox has no IPv6 route) once; an address stays itself. */
export async function resolveAllowEntries(
  entries: readonly SandboxAllowEntry[],
  lookupHost: (host: string) => Promise<string[]> = defaultLookup,
): Promise<ResolvedAllowEntry[]> {
  return Promise.all(
    entries.map(async (entry) => {
      try {
        const addresses = [...new Set(await lookupHost(entry.host))].filter((address) => /^\d+\.\d+\.\d+\.\d+$/.test(address));
        return addresses.length > 0 ? { ...entry, addresses } : { ...entry, addresses, error: 'no IPv4 address' };
      } catch (error) {
        return { ...entry, addresses: [], error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
      }
    }),
  );
}

async function defaultLookup(host: string): Promise<string[]> {
  return (await dns.lookup(host, { all: true, family: 4 })).map((found) => found.address);
}

/** `ip -batch` lines: the refused ranges, then (after the host's addresses) the allow-list. */
export function reachRouteLines(allowed: readonly ResolvedAllowEntry[]): { refuse: string; allow: string } {
  const refuse = REFUSED_RANGES.map((range) => `route replace prohibit ${range}`);
  const rules = new Set<string>();
  for (const entry of allowed) {
    for (const address of entry.addresses) {
      const to = `rule add to ${address}/32`;
      const action = `lookup ${ALLOW_TABLE} pref ${ALLOW_RULE_PREFERENCE}`;
      if (entry.port === undefined) rules.add(`${to} ${action}`);
      else for (const protocol of ['tcp', 'udp']) rules.add(`${to} ipproto ${protocol} dport ${entry.port} ${action}`);
    }
  }
  const allow = rules.size === 0 ? [] : [`route replace default via ${USER_NETWORK_GATEWAY} dev tap0 table ${ALLOW_TABLE}`, ...rules];
  return { refuse: refuse.join('\n'), allow: allow.join('\n') };
}

/** What doctor and the banner say the user-mode network refuses and allows. */
export function describeReach(allowed: readonly ResolvedAllowEntry[]): string[] {
  const refuses = `network refuses: the host's own addresses (all of them, read at each command), ${REFUSED_RANGES.join(', ')} (slirp4netns' own ${USER_NETWORK_CIDR} stays: its DNS forwarder); IPv6 is not routed at all`;
  if (allowed.length === 0) return [refuses, 'network allows beyond that: nothing (TSUKA_SANDBOX_ALLOW is empty)'];
  const entries = allowed.map((entry) => {
    const where = entry.error ? `resolves to nothing now (${entry.error}): allows nothing` : entry.addresses.join(' ');
    const ports = entry.port === undefined ? 'every port' : `TCP and UDP port ${entry.port} only`;
    return `${allowEntryText(entry)} → ${where}${entry.error ? '' : `, ${ports}`}`;
  });
  return [refuses, `network allows (TSUKA_SANDBOX_ALLOW, names resolved at start): ${entries.join('; ')}`];
}

/**
 * Runs in the host's network namespace (after prlimit): reads the host's addresses, then enters a new
 * user + network namespace and runs NETNS_STAGE_SCRIPT there. `$1` ip, `$2` unshare, `$3` the stage
 * script; the rest goes on to it (refused ranges, allow-list lines, bwrap …).
 */
export const NETNS_HOST_SCRIPT = `ip=$1 unshare=$2 stage=$3
shift 3
host=$("$ip" -o address show) || { echo "tsuka: the sandbox cannot read the host's addresses ($ip -o address show)" >&2; exit 125; }
exec "$unshare" --user --map-root-user --net /bin/sh -c "$stage" tsuka-netns "$ip" "$host" "$@"`;

/**
 * Runs inside `unshare --user --map-root-user --net` (the namespace slirp4netns is attached to):
 * says it is there on fd 3, waits on fd 4 until the network is up, adds the routes and rules (any
 * failure stops the command: fail closed), then runs bwrap with `--share-net` (this namespace).
 * `$1` ip, `$2` the host's `ip -o address show`, `$3` refused ranges, `$4` allow-list lines.
 */
export const NETNS_STAGE_SCRIPT = `ip=$1 host=$2 refuse=$3 allow=$4
shift 4
echo 1 >&3; exec 3>&-; read -r _ <&4; exec 4<&-
routes() {
  printf '%s\\n' "$refuse"
  printf '%s\\n' "$host" | while read -r _ _ family address _; do
    case $address in 127.*|::1/*|'') continue ;; esac
    case $family in inet) echo "route replace prohibit \${address%/*}/32" ;; inet6) echo "route replace prohibit \${address%/*}/128" ;; esac
  done
  printf '%s\\n' "$allow"
}
routes | while read -r line; do
  case $line in '') continue ;; *:*) [ -e /proc/net/if_inet6 ] || continue ;; esac
  echo "$line"
done | "$ip" -batch - >&2 || { echo "tsuka: the sandbox's network could not refuse the host's addresses and private ranges ($ip -batch)" >&2; exit 125; }
exec "$@"`;
