#!/usr/bin/env bash
# vector_store_checks.sh: vector-store collection and search verification. Runs the
# vector_store_checks bundle (Qdrant-compatible HTTP API) with the options given, after reading
# an installer configuration for SEMANTIC_VECTOR_STORE_URL when --env-file names one.
set -euo pipefail

AIRLOCK_NAME=vector_store_checks.sh
# shellcheck source=scripts/_airlock.sh
. "$(dirname "${BASH_SOURCE[0]}")/_airlock.sh"

usage() {
  cat <<'USAGE'
Usage: vector_store_checks.sh [--env-file FILE] --collection NAME [--url URL] [--vector-size N]
                              [--api-key-file FILE] [--limit N] [--timeout-ms MS] [--json] [--help]

Checks a collection of the vector store (GET /collections/NAME: status and vector size) and a probe
search (POST /collections/NAME/points/search) over its Qdrant-compatible HTTP API.
  --env-file FILE   read SEMANTIC_VECTOR_STORE_URL from an installer configuration (bootstrap.sh)
Every other option goes to the vector_store_checks bundle; its options:
USAGE
}

args=()
while [ $# -gt 0 ]; do
  case $1 in
    --env-file) airlock_need_value "$1" "${2-}"; airlock_read_env_file "$2"; shift 2 ;;
    -h|--help)
      usage
      airlock_bundle vector_store_checks --help | sed -n '/^Options:/,$p'
      exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
airlock_bundle vector_store_checks "${args[@]+"${args[@]}"}"
