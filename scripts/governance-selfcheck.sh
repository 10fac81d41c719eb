#!/usr/bin/env bash
# governance-selfcheck.sh: the repo-local contract and documentation selfcheck. Runs the offline
# verifiers over a checkout (or install prefix) in order and summarizes: contract schemas, the
# consumer matrix, isolation walls, docs, the QA feature registry, materialization drift and the
# governance metadata derivation.
set -euo pipefail

AIRLOCK_NAME=governance-selfcheck.sh
# shellcheck source=scripts/_airlock.sh
. "$(dirname "${BASH_SOURCE[0]}")/_airlock.sh"

usage() {
  cat <<'USAGE'
Usage: governance-selfcheck.sh [--root DIR] [--json] [--help]

Runs, offline and in this order, over --root (default: the folder above this script):
  check_contract_schemas --dir <root>/contracts
  check_semantic_cdc_matrix --root <root>
  verify_isolation_domain_walls --check
  check_docs_contract --root <root>
  check_module_features_contract --root <root>
  check_runtime_materialization_drift --root <root>   (--skip-bundles when nothing was built)
  export-governance-metadata --root <root>            (the derivation must succeed)
Each step's own output follows its name; a summary ends the run.

Exit codes: 0 every step passed, 1 a step failed, 2 a step could not run (and none failed)
USAGE
}

root=$AIRLOCK_ROOT json=0
while [ $# -gt 0 ]; do
  case $1 in
    --root) airlock_need_value "$1" "${2-}"; root=$2; shift 2 ;;
    --json) json=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) airlock_die "unknown argument \"$1\"; run $AIRLOCK_NAME --help" ;;
  esac
done
[ -d "$root" ] || airlock_die "--root \"$root\" is not a directory"

drift=(check_runtime_materialization_drift --root "$root")
[ -f "$root/dist/package-metadata.json" ] || drift+=(--skip-bundles)
steps=(
  "check_contract_schemas --dir $root/contracts"
  "check_semantic_cdc_matrix --root $root"
  "verify_isolation_domain_walls --check"
  "check_docs_contract --root $root"
  "check_module_features_contract --root $root"
  "${drift[*]}"
  "export-governance-metadata --root $root"
)
case $root in *[[:space:]]*) airlock_die "--root \"$root\" holds a space: choose a plain path" ;; esac

failed=0 unavailable=0 results='' summary=''
for step in "${steps[@]}"; do
  read -r -a words <<<"$step"
  name=${words[0]}
  flags=()
  [ "$json" = 1 ] && [ "$name" != export-governance-metadata ] && flags=(--json)
  status=0
  output=$(airlock_bundle "${words[@]}" "${flags[@]+"${flags[@]}"}" 2>&1) || status=$?
  case $status in
    0) verdict='ok  ' ;;
    1) verdict='FAIL'; failed=$((failed + 1)) ;;
    *) verdict='N/A '; unavailable=$((unavailable + 1)) ;;
  esac
  summary+="$verdict $name (exit $status)"$'\n'
  if [ "$json" = 1 ]; then
    result=null
    [ "$name" != export-governance-metadata ] && [ "${output:0:1}" = '{' ] && result=$output
    results+="${results:+,}{\"step\":$(airlock_json_string "$name"),\"exit_code\":$status,\"result\":$result}"
  else
    printf '== %s\n' "$step"
    [ "$name" = export-governance-metadata ] && [ "$status" -eq 0 ] && output="derived metadata for $(printf '%s' "$output" | grep -c '"service":') services"
    printf '%s\n' "$output"
  fi
done
code=0
[ "$unavailable" -gt 0 ] && code=2
[ "$failed" -gt 0 ] && code=1
if [ "$json" = 1 ]; then
  printf '{"ok":%s,"root":%s,"failed":%s,"not_run":%s,"steps":[%s]}\n' "$([ "$code" -eq 0 ] && echo true || echo false)" "$(airlock_json_string "$root")" "$failed" "$unavailable" "$results"
else
  printf '== summary\n%s' "$summary"
  [ "$code" -eq 0 ] && printf 'selfcheck passed: %s steps\n' "${#steps[@]}" || printf 'selfcheck FAILED: %s failed, %s could not run\n' "$failed" "$unavailable"
fi
exit "$code"
