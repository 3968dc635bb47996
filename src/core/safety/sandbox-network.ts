/**
 * The sandbox's network (issue 29): by default a command must reach the internet but not the
 * host's loopback services (the bot's HTTP port, Redis, the model server on 127.0.0.1).
 *
 * - `user`: bwrap unshares the network namespace and slirp4netns attaches a user-mode network to
 *   it with `--disable-host-loopback` (its gateway 10.0.2.2 would otherwise be the host's
 *   127.0.0.1). The sandbox's 127.0.0.1 is its own; DNS goes through slirp4netns' forwarder at
 *   10.0.2.3, written into the sandbox's resolv.conf. The host's own addresses and the private
 *   ranges are refused too, but for `TSUKA_SANDBOX_ALLOW` (`sandbox-reach.ts`, issue 41).
 * - `none`: only the sandbox's own loopback.
 * - `host`: the host's network, loopback included (the behaviour before issue 29; opt-in).
 *
 * slirp4netns rather than pasta: slirp4netns has `--ready-fd` (the command starts only once the
 * network is up) and `--exit-fd` (it ends when the wrapper does, even after a SIGKILL). Debian 12's
 * pasta (2023-03) cannot start a namespace as root (writing uid_map needs CAP_SETFCAP, which it has
 * dropped) and, attached to a PID, daemonises out of the process group and outlives the sandbox.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The configured wish (`TSUKA_SANDBOX_NETWORK`). */
export type SandboxNetworkSetting = 'auto' | 'user' | 'none' | 'host';
/** What a sandbox actually gives a command. */
export type SandboxNetwork = 'user' | 'none' | 'host';
/** What a role asks for: false = none, true/unset = the sandbox's default, `host` = the host's network. */
export type RoleNetwork = boolean | 'host';

/** slirp4netns' built-in DNS forwarder inside the namespace. */
export const USER_NETWORK_DNS = '10.0.2.3';

/** The network one command gets: the sandbox's default, narrowed or (for `host`) widened by the role. */
export function commandNetwork(sandboxDefault: SandboxNetwork, hostAllowed: boolean, role: RoleNetwork | undefined): SandboxNetwork {
  if (role === false) return 'none';
  if (role === 'host' && hostAllowed) return 'host';
  return sandboxDefault;
}

/** The first executable `name` on PATH, or undefined. */
export function findProgram(name: string, searchPath: string | undefined): string | undefined {
  for (const folder of (searchPath ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    if (folder === '') continue;
    const candidate = path.join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder; keep looking.
    }
  }
  return undefined;
}

/**
 * The host-side wrapper, run by `/bin/sh -c`: `$1` is slirp4netns (or empty), `$2` a cgroup folder
 * to join (or empty), the rest the command (prlimit … [unshare … NETNS_STAGE_SCRIPT] bwrap …).
 * With slirp4netns the command's first process reports on fd 3 once it is in its new network
 * namespace and waits on fd 4; fd 5 carries the sandbox's resolv.conf (`--ro-bind-data 5`).
 * bwrap starts only once slirp4netns says the network is ready; slirp4netns ends with the wrapper
 * (`--exit-fd`), also after a SIGKILL. The command is a background job, which a POSIX shell
 * without job control gives /dev/null as standard input: the wrapper's own stdin is saved on fd 8
 * and handed to it explicitly (stdio MCP servers and commands that read stdin need it; a closed
 * stdin becomes /dev/null, as before).
 */
export const SANDBOX_WRAPPER_SCRIPT = `slirp=$1 cgroup=$2
shift 2
run() {
  if [ -n "$cgroup" ]; then exec /bin/sh -c 'echo $$ > "$0/cgroup.procs" || exit 125; exec "$@"' "$cgroup" "$@"; fi
  exec "$@"
}
if [ -z "$slirp" ]; then run "$@"; fi
dir=$(mktemp -d) || exit 125
trap 'rm -rf "$dir"' EXIT
trap 'exit 143' TERM INT HUP
mkfifo "$dir/ns" "$dir/go" "$dir/ready" "$dir/exit" || exit 125
{ command exec 8<&0; } 2>/dev/null || exec 8</dev/null
run "$@" 0<&8 8<&- 3>"$dir/ns" 4<"$dir/go" 5<<'RESOLV' &
nameserver ${USER_NETWORK_DNS}
RESOLV
sandbox=$!
exec 8<&-
exec 7<"$dir/ns"
exec 4>"$dir/go"
if ! read -r _ <&7; then exec 4>&-; wait "$sandbox"; exit $?; fi
exec 7<&-
"$slirp" --configure --mtu=65520 --disable-host-loopback --enable-sandbox --ready-fd 5 --exit-fd 6 "$sandbox" tap0 6<"$dir/exit" 5>"$dir/ready" </dev/null >/dev/null 2>"$dir/slirp.log" &
exec 6>"$dir/exit"
ready=$(dd bs=1 count=1 <"$dir/ready" 2>/dev/null)
if [ "$ready" != 1 ]; then
  echo "tsuka: the sandbox's network (slirp4netns) did not start: $(head -c 300 "$dir/slirp.log")" >&2
  kill "$sandbox" 2>/dev/null
  exit 125
fi
echo go >&4
exec 4>&-
wait "$sandbox"
`;
