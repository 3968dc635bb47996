#!/bin/sh
# Container entrypoint, run under tini. Checks the volumes are writable, then hands the process over
# with exec so that tini's SIGTERM reaches node directly. Never prints environment values: they hold tokens.
set -eu

app_dir="${TSUKA_APP_DIR:-/app}"
data_dir="${TSUKA_DATA_DIR:-/data}"
workspace_dir="${TSUKA_WORKSPACE:-/workspace}"

# Prints one line naming the directory and the host-side fix; returns non-zero when not writable.
check_writable() {
  label="$1"
  dir="$2"
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir" 2>/dev/null || {
      echo "tsuka: the $label directory $dir does not exist and cannot be created: mount a volume there (docker run -v ...:$dir)" >&2
      return 1
    }
  fi
  probe="$dir/.tsuka-write-test.$$"
  if ! (: > "$probe") 2>/dev/null; then
    echo "tsuka: the $label directory $dir is not writable by uid $(id -u): on the host run 'chown -R $(id -u):$(id -g) <the folder mounted at $dir>'" >&2
    return 1
  fi
  rm -f "$probe"
}

[ "$#" -gt 0 ] || set -- start

case "$1" in
  start | ask)
    ok=0
    check_writable data "$data_dir" || ok=1
    check_writable workspace "$workspace_dir" || ok=1
    # 78 = EX_CONFIG: the fix is on the host, restarting the container will not help.
    [ "$ok" -eq 0 ] || exit 78
    exec node "$app_dir/bin/tsuka.js" "$@"
    ;;
  doctor | help)
    # Diagnosis must still run when a volume is wrong: the line above the report names the fix.
    check_writable data "$data_dir" || true
    check_writable workspace "$workspace_dir" || true
    exec node "$app_dir/bin/tsuka.js" "$@"
    ;;
  *)
    # Anything else (sh, node, npx tsuka ...) runs as given, so the image can be debugged.
    exec "$@"
    ;;
esac
