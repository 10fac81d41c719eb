#!/usr/bin/env bash
# install_memory.sh: installs or re-materializes the Airlock runtime stack into a prefix: the
# bundles and their package metadata, the contracts, stack contract, manifest, docs and shell
# scripts, the installer configuration (bootstrap.sh, kept when present) and one generated systemd
# unit per executable. A new release moves the previous dist/ to rollback/<version>/. Files are
# written only when their bytes differ, so a second run changes nothing. Ends with the drift check.
set -euo pipefail

AIRLOCK_NAME=install_memory.sh
# shellcheck source=scripts/_airlock.sh
. "$(dirname "${BASH_SOURCE[0]}")/_airlock.sh"

usage() {
  cat <<'USAGE'
Usage: install_memory.sh [--prefix DIR] [--from DIR] [--dist DIR] [--data-dir DIR] [--node PATH]
                         [--keep N] [--enable] [--unit-dir DIR] [--json] [--help]

Installs (or re-materializes) the runtime stack under --prefix:
  dist/bin/*, dist/package-metadata.json   the bundles of --dist and the metadata that hashes them
  contracts/, configs/stack-contract.json, governance-manifest.json, README.md, docs/, scripts/*.sh
  toolchain/node-sha256.json               the pinned Node binary's hashes (the bundles' provenance)
  etc/airlock.env, etc/secrets/            written by bootstrap.sh when absent, kept otherwise
  systemd/airlock-<name>[-<role>].service  one hardened unit per executable of the stack contract (not enabled;
                                           user airlock, only the data directory writable, loopback only)
  rollback/<version>/dist                  the previous release, when the version changes (--keep of them)
  install-state.json                       current release and retained releases (the rollback window)
Then runs check_runtime_materialization_drift on the prefix. A second run with the same inputs
changes nothing.

Options:
  --prefix DIR    install prefix (default: /opt/airlock)
  --from DIR      checkout or prefix to install from (default: the folder above this script)
  --dist DIR      build output to install (default: <from>/dist, made by npm run build)
  --data-dir DIR  AIRLOCK_DATA_DIR for a new configuration (default: <prefix>/var)
  --node PATH     node >= 24 for the units' ExecStart (default: node on PATH)
  --keep N        earlier releases to keep under rollback/ (default: 1)
  --enable        also create the system user airlock (owner of the data directory), copy the units to
                  --unit-dir, then systemctl daemon-reload and enable --now
  --unit-dir DIR  where --enable puts the units (default: /etc/systemd/system)
  --json          print the result as one JSON document
  -h, --help      show this help

Needs root only for a prefix or unit directory it cannot write.
Exit codes: 0 installed and no drift, 1 drift after installing, 2 usage or environment error
USAGE
}

prefix=/opt/airlock from=$AIRLOCK_ROOT dist='' data_dir='' node_path='' keep=1 enable=0 unit_dir=/etc/systemd/system json=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) airlock_need_value "$1" "${2-}"; prefix=$2; shift 2 ;;
    --from) airlock_need_value "$1" "${2-}"; from=$2; shift 2 ;;
    --dist) airlock_need_value "$1" "${2-}"; dist=$2; shift 2 ;;
    --data-dir) airlock_need_value "$1" "${2-}"; data_dir=$2; shift 2 ;;
    --node) airlock_need_value "$1" "${2-}"; node_path=$2; shift 2 ;;
    --keep) airlock_need_value "$1" "${2-}"; keep=$2; shift 2 ;;
    --enable) enable=1; shift ;;
    --unit-dir) airlock_need_value "$1" "${2-}"; unit_dir=$2; shift 2 ;;
    --json) json=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) airlock_die "unknown argument \"$1\"; run $AIRLOCK_NAME --help" ;;
  esac
done
case $keep in ''|*[!0-9]*) airlock_die "--keep \"$keep\" is not a whole number" ;; esac
case $prefix in /*) ;; *) airlock_die "--prefix \"$prefix\" is not an absolute path" ;; esac
from=$(cd "$from" 2>/dev/null && pwd) || airlock_die "--from \"$from\" is not a directory"
dist=${dist:-$from/dist}
for needed in "$dist/package-metadata.json" "$dist/bin" "$from/configs/stack-contract.json" "$from/governance-manifest.json" "$from/contracts"; do
  [ -e "$needed" ] || airlock_die "cannot install: \"$needed\" is missing (npm run build makes dist/)"
done
if [ -z "$node_path" ]; then
  airlock_node_ok || airlock_die "node >= 24 is not on PATH: give --node PATH for the units"
  node_path=$(command -v node)
fi

# The "version" and "revision" members of build.mjs's metadata (two-space JSON, one member a line).
metadata_member() {
  sed -n "s/^  \"$2\": \"\\([^\"]*\\)\",\$/\\1/p" "$1" | head -n 1
}

changed=()
unchanged=0
note() {
  if [ "$1" = changed ]; then changed+=("$2"); else unchanged=$((unchanged + 1)); fi
}
# install_file SOURCE RELATIVE-PATH MODE: copies SOURCE unless the installed file has its bytes and mode.
install_file() {
  local target=$prefix/$2
  if [ "${installed_modes[$target]-}" = "${3#0}" ] && cmp -s "$1" "$target"; then
    unchanged=$((unchanged + 1))
    return
  fi
  mkdir -p "$(dirname "$target")"
  cp "$1" "$target.tmp.$$"
  chmod "$3" "$target.tmp.$$"
  mv -f "$target.tmp.$$" "$target"
  changed+=("$2")
}

version=$(metadata_member "$dist/package-metadata.json" version)
revision=$(metadata_member "$dist/package-metadata.json" revision)
[ -n "$version" ] || airlock_die "cannot read the version of \"$dist/package-metadata.json\""
mkdir -p "$prefix"

# A new release: the installed one is kept under rollback/<its version>/ first.
if [ -f "$prefix/dist/package-metadata.json" ] && [ "$(cd "$prefix/dist" && pwd)" != "$(cd "$dist" && pwd)" ]; then
  previous=$(metadata_member "$prefix/dist/package-metadata.json" version)
  if [ -n "$previous" ] && [ "$previous" != "$version" ]; then
    rm -rf "$prefix/rollback/$previous"
    mkdir -p "$prefix/rollback/$previous"
    mv "$prefix/dist" "$prefix/rollback/$previous/dist"
    changed+=("rollback/$previous/dist")
    # shellcheck disable=SC2012 # release folder names are plain versions
    ls -1t "$prefix/rollback" | tail -n +$((keep + 1)) | while read -r old; do rm -rf "${prefix:?}/rollback/$old"; done
  fi
fi

# Modes of the files already installed, read once (GNU find), so unchanged files cost one cmp.
declare -A installed_modes=()
if [ -d "$prefix" ]; then
  while read -r mode path; do installed_modes[$path]=$mode; done < <(find "$prefix" -type f -printf '%m %p\n')
fi
for file in "$dist"/bin/*; do
  [ -f "$file" ] || continue
  mode=0644
  case $file in *.mjs) mode=0755 ;; esac
  install_file "$file" "dist/bin/$(basename "$file")" "$mode"
done
for file in "$prefix"/dist/bin/*; do
  [ -f "$file" ] || continue
  [ -f "$dist/bin/$(basename "$file")" ] || { rm -f "$file"; changed+=("removed dist/bin/$(basename "$file")"); }
done
install_file "$dist/package-metadata.json" dist/package-metadata.json 0644
if [ "$from" != "$(cd "$prefix" && pwd)" ]; then
  while IFS= read -r -d '' file; do
    install_file "$file" "${file#"$from"/}" 0644
  done < <(find "$from/contracts" "$from/configs/stack-contract.json" "$from/governance-manifest.json" \
    $([ -f "$from/toolchain/node-sha256.json" ] && printf '%s' "$from/toolchain/node-sha256.json") -type f -print0 | sort -z)
  for file in "$from"/README.md "$from"/docs/*.md; do
    [ -f "$file" ] && install_file "$file" "${file#"$from"/}" 0644
  done
  for file in "$from"/scripts/*.sh; do
    [ -f "$file" ] && install_file "$file" "scripts/$(basename "$file")" 0755
  done
fi

# Configuration: bootstrap.sh of the prefix keeps an existing one (and re-applies its secret modes).
bootstrap_args=(--prefix "$prefix")
[ -n "$data_dir" ] && bootstrap_args+=(--data-dir "$data_dir")
[ -f "$prefix/etc/airlock.env" ] || changed+=("etc/airlock.env")
AIRLOCK_ROOT=$prefix AIRLOCK_BIN_DIR=$prefix/dist/bin bash "$prefix/scripts/bootstrap.sh" "${bootstrap_args[@]}" >/dev/null

# One hardened unit per executable (and healthcheck) of the installed stack contract, from
# write_systemd_units: user airlock, read-only system, only the data directory writable, loopback
# only, no capabilities, a system-call filter (systemd-analyze security: OK).
units=()
metadata=$(AIRLOCK_BIN_DIR=$prefix/dist/bin airlock_bundle export-governance-metadata --root "$prefix" --tsv) \
  || airlock_die "cannot read the installed stack contract"
while IFS=$'\t' read -r kind _service name role _bundle args _listeners; do
  [ "$kind" = executable ] || continue
  # A role named dev-* is a development aid that npm start runs (content-dev-oidc): never a unit.
  case $role in dev-*) continue ;; esac
  if [ "$args" != - ]; then units+=("airlock-$name-$role.service"); else units+=("airlock-$name.service"); fi
done <<<"$metadata"
env_data_dir=$(sed -n 's/^AIRLOCK_DATA_DIR=//p' "$prefix/etc/airlock.env" | tail -n 1)
[ -n "$env_data_dir" ] || airlock_die "$prefix/etc/airlock.env sets no AIRLOCK_DATA_DIR: run bootstrap.sh --force"
unit_output=$(AIRLOCK_BIN_DIR=$prefix/dist/bin airlock_bundle write_systemd_units --root "$prefix" --prefix "$prefix" \
  --data-dir "$env_data_dir" --shared-data-dir --exec "$node_path $prefix/dist/bin/{name}.mjs" --out "$prefix/systemd") \
  || airlock_die "cannot write the systemd units: $unit_output"
unit_files=$(find "$prefix/systemd" -maxdepth 1 -name 'airlock-*' -printf '%f\n' | LC_ALL=C sort)
while IFS= read -r file; do
  [ -n "$file" ] || continue
  if printf '%s\n' "$unit_output" | grep -qxF "changed $file"; then changed+=("systemd/$file"); else unchanged=$((unchanged + 1)); fi
done <<<"$unit_files"

# The rollback window: the current release and every retained one.
state_text() {
  local installed_at separator='' dir old
  installed_at=$(sed -n 's/^    "installed_at": "\([^"]*\)"$/\1/p' "$prefix/install-state.json" 2>/dev/null | head -n 1)
  if [ -z "$installed_at" ] || ! grep -q "\"version\": \"$version\"," "$prefix/install-state.json" 2>/dev/null; then
    installed_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  fi
  printf '{\n  "install_state": 1,\n  "current": {\n'
  printf '    "version": %s,\n    "revision": %s,\n    "installed_at": %s\n  },\n' "$(airlock_json_string "$version")" "$(airlock_json_string "$revision")" "$(airlock_json_string "$installed_at")"
  printf '  "retention": %s,\n  "rollback": [' "$keep"
  for dir in "$prefix"/rollback/*/; do
    [ -f "$dir/dist/package-metadata.json" ] || continue
    old=$(basename "$dir")
    printf '%s\n    { "version": %s, "revision": %s, "path": %s }' "$separator" "$(airlock_json_string "$old")" \
      "$(airlock_json_string "$(metadata_member "$dir/dist/package-metadata.json" revision)")" "$(airlock_json_string "rollback/$old")"
    separator=','
  done
  [ -n "$separator" ] && printf '\n  '
  printf ']\n}\n'
}
note "$(state_text | airlock_write_if_changed "$prefix/install-state.json" 0644)" install-state.json

enabled=false
if [ "$enable" = 1 ]; then
  mkdir -p "$unit_dir"
  # The units run as the unprivileged user airlock, which owns the data directory.
  if ! getent passwd airlock >/dev/null 2>&1; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --comment Airlock airlock \
      || airlock_die "cannot create the system user airlock that the units run as"
    changed+=("user airlock")
  fi
  mkdir -p "$env_data_dir"
  if id -u airlock >/dev/null 2>&1 && [ "$(stat -c %U "$env_data_dir")" != airlock ]; then chown -R airlock:airlock "$env_data_dir"; changed+=("owner of $env_data_dir"); fi
  timers=()
  while IFS= read -r file; do
    [ -n "$file" ] || continue
    note "$(airlock_write_if_changed "$unit_dir/$file" 0644 <"$prefix/systemd/$file")" "$unit_dir/$file"
    case $file in *.timer) timers+=("$file") ;; esac
  done <<<"$unit_files"
  systemctl daemon-reload
  systemctl enable --now "${units[@]}"
  [ ${#timers[@]} -eq 0 ] || systemctl enable --now "${timers[@]}"
  enabled=true
fi

drift=0
drift_output=$(AIRLOCK_BIN_DIR=$prefix/dist/bin airlock_bundle check_runtime_materialization_drift --root "$prefix") || drift=$?
[ "$drift" -eq 2 ] && airlock_die "the drift check could not run: $drift_output"
if [ "$json" = 1 ]; then
  printf '{"ok":%s,"prefix":%s,"version":%s,"changed":[' "$([ "$drift" -eq 0 ] && echo true || echo false)" "$(airlock_json_string "$prefix")" "$(airlock_json_string "$version")"
  separator=''
  for item in "${changed[@]+"${changed[@]}"}"; do
    [ -n "$item" ] || continue
    printf '%s%s' "$separator" "$(airlock_json_string "$item")"
    separator=','
  done
  printf '],"unchanged":%s,"units":[' "$unchanged"
  separator=''
  for unit in "${units[@]}"; do printf '%s%s' "$separator" "$(airlock_json_string "$unit")"; separator=','; done
  printf '],"enabled":%s,"drift_exit_code":%s}\n' "$enabled" "$drift"
else
  count=0
  for item in "${changed[@]+"${changed[@]}"}"; do [ -n "$item" ] && { printf 'changed %s\n' "$item"; count=$((count + 1)); }; done
  printf 'install_memory: %s changed, %s unchanged under %s (release %s)\n' "$count" "$unchanged" "$prefix" "$version"
  [ "$enabled" = true ] || printf 'units are in %s/systemd (not enabled; --enable copies them to %s and starts them)\n' "$prefix" "$unit_dir"
  [ "$drift" -eq 0 ] || printf '%s\n' "$drift_output"
fi
exit "$drift"
