#!/usr/bin/env bash
# reapply_after_runtime_update.sh: restores the Airlock stack's installed state after an
# agent-runtime update (a new node, units or secret modes changed behind its back): re-runs
# install_memory.sh on the prefix (configuration kept, secret modes re-applied, units regenerated,
# files restored from --from), then the drift check, live as well with --check-live.
set -euo pipefail

AIRLOCK_NAME=reapply_after_runtime_update.sh
# shellcheck source=scripts/_airlock.sh
. "$(dirname "${BASH_SOURCE[0]}")/_airlock.sh"

usage() {
  cat <<'USAGE'
Usage: reapply_after_runtime_update.sh [--prefix DIR] [--from DIR] [--dist DIR] [--node PATH] [--enable]
                                       [--unit-dir DIR] [--check-live] [--base-url URL] [--json] [--help]

After an agent-runtime update: re-applies the installed configuration with install_memory.sh (from
--from, default the prefix itself: its bundles, contracts and scripts), then runs
check_runtime_materialization_drift on the prefix, with --check-live against the running API too.

Options:
  --prefix DIR    install prefix (default: /opt/airlock)
  --from DIR      checkout or prefix to restore from (default: the prefix)
  --dist DIR      build output to restore from (default: <from>/dist)
  --node PATH     node for the units (default: node on PATH)
  --enable        re-enable and restart the units (see install_memory.sh --enable)
  --unit-dir DIR  unit directory for --enable (default: /etc/systemd/system)
  --check-live    compare the running semantic API too
  --base-url URL  its base URL (default: from the stack contract)
  --json          print the drift report as JSON
  -h, --help      show this help

Exit codes: 0 re-applied and no drift, 1 drift remains, 2 usage or environment error
USAGE
}

prefix=/opt/airlock from='' install_args=() drift_args=() json=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) airlock_need_value "$1" "${2-}"; prefix=$2; shift 2 ;;
    --from) airlock_need_value "$1" "${2-}"; from=$2; shift 2 ;;
    --dist|--node|--unit-dir) airlock_need_value "$1" "${2-}"; install_args+=("$1" "$2"); shift 2 ;;
    --enable) install_args+=("$1"); shift ;;
    --check-live) drift_args+=("$1"); shift ;;
    --base-url) airlock_need_value "$1" "${2-}"; drift_args+=("$1" "$2"); shift 2 ;;
    --json) json=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) airlock_die "unknown argument \"$1\"; run $AIRLOCK_NAME --help" ;;
  esac
done
[ -f "$prefix/dist/package-metadata.json" ] || [ -n "$from" ] \
  || airlock_die "\"$prefix\" holds no installed release: run install_memory.sh first, or give --from"
from=${from:-$prefix}

installer=$AIRLOCK_SCRIPTS_DIR/install_memory.sh
[ -f "$prefix/scripts/install_memory.sh" ] && [ "$from" = "$prefix" ] && installer=$prefix/scripts/install_memory.sh
status=0
output=$(bash "$installer" --prefix "$prefix" --from "$from" "${install_args[@]+"${install_args[@]}"}") || status=$?
[ "$status" -eq 2 ] && exit 2
# Only what the installer changed; the drift report follows once, below.
[ "$json" = 1 ] || printf '%s\n' "$output" | sed -n 's/^changed /re-applied: /p'
[ "$json" = 1 ] && drift_args+=(--json)
status=0
AIRLOCK_BIN_DIR=$prefix/dist/bin airlock_bundle check_runtime_materialization_drift --root "$prefix" "${drift_args[@]+"${drift_args[@]}"}" || status=$?
exit "$status"
