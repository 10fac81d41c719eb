#!/usr/bin/env bash
# plugin_smoke_test.sh: bounded runtime smoke validation of a running stack: health and readiness,
# the status and context readbacks, the topology readback, one synthetic fixture and one refused
# request, through check_live_runtime_contract --smoke, bounded by a request count and a time limit.
set -euo pipefail

AIRLOCK_NAME=plugin_smoke_test.sh
# shellcheck source=scripts/_airlock.sh
. "$(dirname "${BASH_SOURCE[0]}")/_airlock.sh"

usage() {
  cat <<'USAGE'
Usage: plugin_smoke_test.sh [--env-file FILE] [--base-url URL] [--max-requests N] [--timeout SECONDS] [--json] [--help]

Smoke-tests the running semantic API with check_live_runtime_contract --smoke: at most --max-requests
requests, stopped after --timeout seconds (a stop is a failure). Tokens come from the environment
(SEMANTIC_OPERATOR_TOKEN(_FILE), SEMANTIC_CONSUMER_TOKENS_FILE), or from the installer configuration
named by --env-file (written by bootstrap.sh).

Options:
  --env-file FILE    installer configuration to read (e.g. /opt/airlock/etc/airlock.env)
  --base-url URL     the semantic API (default: http://$SEMANTIC_LISTEN, else http://127.0.0.1:18020)
  --max-requests N   request budget (default: 20)
  --timeout SECONDS  time limit of the whole run (default: 30)
  --json             print the result as one JSON document
  -h, --help         show this help

Exit codes: 0 every smoke check passed, 1 a check failed, the budget or the time ran out, 2 usage or
environment error (service unreachable, token missing)
USAGE
}

base_url='' max_requests=20 timeout_s=30 json=0
while [ $# -gt 0 ]; do
  case $1 in
    --env-file) airlock_need_value "$1" "${2-}"; airlock_read_env_file "$2"; shift 2 ;;
    --base-url) airlock_need_value "$1" "${2-}"; base_url=$2; shift 2 ;;
    --max-requests) airlock_need_value "$1" "${2-}"; max_requests=$2; shift 2 ;;
    --timeout) airlock_need_value "$1" "${2-}"; timeout_s=$2; shift 2 ;;
    --json) json=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) airlock_die "unknown argument \"$1\"; run $AIRLOCK_NAME --help" ;;
  esac
done
case $max_requests in ''|0|*[!0-9]*) airlock_die "--max-requests \"$max_requests\" is not a positive whole number" ;; esac
case $timeout_s in ''|0|*[!0-9]*) airlock_die "--timeout \"$timeout_s\" is not a positive whole number of seconds" ;; esac
base_url=${base_url:-http://${SEMANTIC_LISTEN:-127.0.0.1:18020}}
command -v timeout >/dev/null 2>&1 || airlock_die "the timeout command (coreutils) is not on PATH"

airlock_command check_live_runtime_contract
per_request=$((timeout_s * 1000 < 5000 ? timeout_s * 1000 : 5000))
format=()
[ "$json" = 1 ] && format=(--json)
status=0
output=$(timeout --kill-after=2 "$timeout_s" "${AIRLOCK_CMD[@]}" --base-url "$base_url" --smoke \
  --max-requests "$max_requests" --timeout-ms "$per_request" "${format[@]+"${format[@]}"}") || status=$?
timed_out=false
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  timed_out=true
  status=1
fi
if [ "$json" = 1 ]; then
  printf '{"ok":%s,"base_url":%s,"max_requests":%s,"timeout_seconds":%s,"timed_out":%s,"exit_code":%s,"result":%s}\n' \
    "$([ "$status" -eq 0 ] && echo true || echo false)" "$(airlock_json_string "$base_url")" "$max_requests" "$timeout_s" "$timed_out" "$status" "${output:-null}"
else
  [ -n "$output" ] && printf '%s\n' "$output"
  if [ "$timed_out" = true ]; then
    printf 'smoke test FAILED against %s: stopped after %s s (--timeout)\n' "$base_url" "$timeout_s"
  elif [ "$status" -eq 0 ]; then
    printf 'smoke test passed against %s (at most %s requests)\n' "$base_url" "$max_requests"
  else
    printf 'smoke test FAILED against %s (exit %s)\n' "$base_url" "$status"
  fi
fi
exit "$status"
