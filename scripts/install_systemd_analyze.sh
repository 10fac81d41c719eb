#!/usr/bin/env bash
# install_systemd_analyze.sh: makes systemd-analyze available for the unit tests (verify and
# security --offline of the generated units), from Debian's systemd package. Idempotent: does
# nothing when systemd-analyze is already on PATH.
set -euo pipefail

if [ "${1-}" = --help ] || [ "${1-}" = -h ]; then
  cat <<'USAGE'
Usage: install_systemd_analyze.sh [--help]

Installs Debian's systemd package (apt-get, as root) when systemd-analyze is not on PATH; the
tests in test/delivery/ run `systemd-analyze verify` and `systemd-analyze security --offline=true`
on the generated units. Does nothing when it is already there.
Exit codes: 0 available, 2 could not install
USAGE
  exit 0
fi
if command -v systemd-analyze >/dev/null 2>&1; then
  echo "systemd-analyze: $(systemd-analyze --version | head -n 1)"
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || { echo "install_systemd_analyze.sh: apt-get is missing; install systemd's systemd-analyze (systemd >= 250) another way" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "install_systemd_analyze.sh: run as root (apt-get install systemd)" >&2; exit 2; }
apt-cache policy systemd | head -n 3
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends systemd >/dev/null \
  || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends systemd >/dev/null; } \
  || { echo "install_systemd_analyze.sh: apt-get install systemd failed" >&2; exit 2; }
echo "systemd-analyze: $(systemd-analyze --version | head -n 1)"
