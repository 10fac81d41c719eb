#!/usr/bin/env bash
# scan_and_fix.sh: the seed's command surface for scanning open issues and running an executor on
# each. Runs the scan_and_fix bundle with the options given (see --help).
set -euo pipefail

AIRLOCK_NAME=scan_and_fix.sh
# shellcheck source=scripts/_airlock.sh
. "$(dirname "${BASH_SOURCE[0]}")/_airlock.sh"

case ${1-} in
  -h|--help)
    printf 'Usage: scan_and_fix.sh [options]\n\nRuns the scan_and_fix bundle; its help follows.\n\n'
    airlock_bundle scan_and_fix --help
    exit 0 ;;
esac
airlock_bundle scan_and_fix "$@"
