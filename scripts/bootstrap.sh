#!/usr/bin/env bash
# bootstrap.sh: writes the installer configuration of an Airlock stack: <config dir>/airlock.env
# (data directory, every listener's host:port from the stack contract, the secret files' paths)
# and generated secrets under <config dir>/secrets/, mode 0600. An existing configuration is kept
# (its secret modes re-applied) unless --force.
set -euo pipefail

AIRLOCK_NAME=bootstrap.sh
# shellcheck source=scripts/_airlock.sh
. "$(dirname "${BASH_SOURCE[0]}")/_airlock.sh"

usage() {
  cat <<'USAGE'
Usage: bootstrap.sh [--prefix DIR] [--config-dir DIR] [--data-dir DIR] [--force] [--json] [--help]

Writes the installer configuration of the Airlock stack, without overwriting an existing one:
  <config dir>/airlock.env                         AIRLOCK_DATA_DIR, each listener's <ENV>=host:port (from
                                                   configs/stack-contract.json), the secret file paths, S0
  <config dir>/secrets/semantic-operator-token     generated, mode 0600
  <config dir>/secrets/semantic-consumer-tokens.json  one generated token per admitted consumer, mode 0600
  <config dir>/secrets/governance-operator-token   generated, mode 0600
SEMANTIC_PROJECTION_CASE_ALLOWLIST stays unset: projection verification fails closed until you list cases.

Options:
  --prefix DIR      install prefix (default: /opt/airlock)
  --config-dir DIR  where the configuration goes (default: <prefix>/etc)
  --data-dir DIR    AIRLOCK_DATA_DIR (default: <prefix>/var)
  --force           replace an existing configuration and its secrets
  --json            print the result as one JSON document
  -h, --help        show this help

Needs no root when it can write the directories. Reads the stack contract under $AIRLOCK_ROOT (default:
the folder above this script) through the export-governance-metadata bundle.
Exit codes: 0 written or kept, 2 usage or environment error
USAGE
}

prefix=/opt/airlock config_dir='' data_dir='' force=0 json=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) airlock_need_value "$1" "${2-}"; prefix=$2; shift 2 ;;
    --config-dir) airlock_need_value "$1" "${2-}"; config_dir=$2; shift 2 ;;
    --data-dir) airlock_need_value "$1" "${2-}"; data_dir=$2; shift 2 ;;
    --force) force=1; shift ;;
    --json) json=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) airlock_die "unknown argument \"$1\"; run $AIRLOCK_NAME --help" ;;
  esac
done
config_dir=${config_dir:-$prefix/etc}
data_dir=${data_dir:-$prefix/var}
for path in "$config_dir" "$data_dir"; do
  case $path in
    /*) ;;
    *) airlock_die "\"$path\" is not an absolute path" ;;
  esac
  case $path in
    *[[:space:]\"\'\$\\]*) airlock_die "\"$path\" holds a space, quote, \$ or backslash: choose a plain path" ;;
  esac
done

env_file=$config_dir/airlock.env
secrets=$config_dir/secrets

report() {
  local written=$1 message=$2
  if [ "$json" = 1 ]; then
    printf '{"ok":true,"written":%s,"config":%s,"data_dir":%s,"secrets":%s}\n' "$written" \
      "$(airlock_json_string "$env_file")" "$(airlock_json_string "$data_dir")" "$(airlock_json_string "$secrets")"
  else
    printf '%s\n' "$message"
  fi
}

if [ -f "$env_file" ] && [ "$force" = 0 ]; then
  # Kept as it is; only the modes of the secrets are put back, in case something loosened them.
  [ -d "$secrets" ] && chmod 0700 "$secrets" && find "$secrets" -type f -exec chmod 0600 {} +
  report false "kept the existing configuration $env_file (--force replaces it)"
  exit 0
fi

token() {
  head -c 24 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n'
}

metadata=$(airlock_bundle export-governance-metadata --root "$AIRLOCK_ROOT" --tsv) \
  || airlock_die "cannot read the stack contract under \"$AIRLOCK_ROOT\""
listen_lines=''
consumers=()
while IFS=$'\t' read -r kind _service name _role _bundle _args listeners; do
  if [ "$kind" = executable ] && [ "$listeners" != - ]; then
    IFS=',' read -r -a pairs <<<"$listeners"
    for pair in "${pairs[@]}"; do listen_lines+="$pair"$'\n'; done
  elif [ "$kind" = consumer ] && [ "$_role" = admitted ]; then
    consumers+=("$name")
  fi
done <<<"$metadata"
[ "${#consumers[@]}" -gt 0 ] || airlock_die "the contracts admit no consumer: cannot write consumer tokens"

umask 077
mkdir -p "$config_dir" "$data_dir" "$secrets"
chmod 0700 "$secrets" "$data_dir"
token >"$secrets/semantic-operator-token.tmp" && mv -f "$secrets/semantic-operator-token.tmp" "$secrets/semantic-operator-token"
token >"$secrets/governance-operator-token.tmp" && mv -f "$secrets/governance-operator-token.tmp" "$secrets/governance-operator-token"
{
  printf '{\n'
  for i in "${!consumers[@]}"; do
    separator=','
    [ "$i" -eq $((${#consumers[@]} - 1)) ] && separator=''
    printf '  %s: %s%s\n' "$(airlock_json_string "${consumers[$i]}")" "$(airlock_json_string "$(token)")" "$separator"
  done
  printf '}\n'
} >"$secrets/semantic-consumer-tokens.json.tmp"
mv -f "$secrets/semantic-consumer-tokens.json.tmp" "$secrets/semantic-consumer-tokens.json"
{
  printf '# Airlock installer configuration, written by bootstrap.sh. Not secret: secrets are in the\n'
  printf '# files named by *_FILE (mode 0600). Read by the service units (EnvironmentFile=) and the scripts.\n'
  printf 'AIRLOCK_DATA_DIR=%s\n' "$data_dir"
  printf '%s' "$listen_lines" | sort -u
  printf 'SEMANTIC_OPERATOR_TOKEN_FILE=%s\n' "$secrets/semantic-operator-token"
  printf 'SEMANTIC_CONSUMER_TOKENS_FILE=%s\n' "$secrets/semantic-consumer-tokens.json"
  printf 'GOVERNANCE_OPERATOR_TOKEN_FILE=%s\n' "$secrets/governance-operator-token"
  printf 'SEMANTIC_ACTIVATION_STAGE=S0\n'
  printf '# SEMANTIC_PROJECTION_CASE_ALLOWLIST= (unset: projection verification answers 503 until ts02: case refs are listed)\n'
} >"$env_file.tmp"
chmod 0600 "$env_file.tmp" "$secrets"/*
mv -f "$env_file.tmp" "$env_file"
report true "wrote $env_file and ${#consumers[@]} consumer tokens, 2 operator tokens under $secrets (mode 0600)"
