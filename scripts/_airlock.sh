# shellcheck shell=bash
# Shared helpers of the seed-000 shell surfaces; sourced by each scripts/<name>.sh, never run.
# Bundles are found in $AIRLOCK_BIN_DIR (default: dist/bin beside this scripts/ folder) and run
# with node >= 24 from PATH; without node, a standalone binary (dist/sea/<name>, or
# $AIRLOCK_SEA_DIR/<name>, or the release's bin/airlock holding every command) is used instead.

AIRLOCK_SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
AIRLOCK_ROOT=${AIRLOCK_ROOT:-$(cd "$AIRLOCK_SCRIPTS_DIR/.." && pwd)}
AIRLOCK_NAME=${AIRLOCK_NAME:-$(basename "$0")}

# airlock_die MESSAGE [CODE]: the message on stderr, then exit CODE (default 2).
airlock_die() {
  printf '%s: %s\n' "$AIRLOCK_NAME" "$1" >&2
  exit "${2:-2}"
}

airlock_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || return 1
  [ "$major" -ge 24 ] 2>/dev/null
}

# airlock_command NAME: sets the array AIRLOCK_CMD to the command that runs bundle NAME.
airlock_command() {
  local name=$1
  local bin_dir=${AIRLOCK_BIN_DIR:-$AIRLOCK_ROOT/dist/bin}
  local sea_dir=${AIRLOCK_SEA_DIR:-$AIRLOCK_ROOT/dist/sea}
  if [ -f "$bin_dir/$name.mjs" ] && airlock_node_ok; then
    AIRLOCK_CMD=(node "$bin_dir/$name.mjs")
  elif [ -x "$sea_dir/$name" ]; then
    AIRLOCK_CMD=("$sea_dir/$name")
  elif [ -x "$AIRLOCK_ROOT/bin/airlock" ]; then
    # A release installed by install.sh: one binary holding every command.
    AIRLOCK_CMD=("$AIRLOCK_ROOT/bin/airlock" "$name")
  else
    airlock_die "cannot run \"$name\": need node >= 24 on PATH and $bin_dir/$name.mjs, or the standalone binary $sea_dir/$name (npm run build)"
  fi
}

# airlock_bundle NAME ARGS...: runs bundle NAME; its exit code is the function's.
airlock_bundle() {
  airlock_command "$1"
  shift
  "${AIRLOCK_CMD[@]}" "$@"
}

# airlock_json_string TEXT: TEXT as a JSON string literal.
airlock_json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}

# airlock_need_value OPTION VALUE: refuses an option given without its value.
airlock_need_value() {
  [ -n "${2-}" ] && [ "${2#--}" = "$2" ] || airlock_die "$1 needs a value; run $AIRLOCK_NAME --help"
}

# airlock_write_if_changed FILE MODE: writes stdin to FILE through a temporary file unless FILE
# already holds exactly those bytes; prints "changed" or "unchanged".
airlock_write_if_changed() {
  local file=$1 mode=$2 tmp
  mkdir -p "$(dirname "$file")"
  tmp=$(mktemp "$(dirname "$file")/.$(basename "$file").XXXXXX")
  cat >"$tmp"
  chmod "$mode" "$tmp"
  if [ -f "$file" ] && cmp -s "$tmp" "$file" && [ "$(stat -c %a "$file")" = "${mode#0}" ]; then
    rm -f "$tmp"
    echo unchanged
  else
    mv -f "$tmp" "$file"
    echo changed
  fi
}

# airlock_read_env_file FILE: exports the variables of an installer configuration (bootstrap.sh).
airlock_read_env_file() {
  [ -r "$1" ] || airlock_die "cannot read \"$1\""
  set -a
  # shellcheck disable=SC1090 # an installer configuration chosen at run time
  . "$1"
  set +a
}
