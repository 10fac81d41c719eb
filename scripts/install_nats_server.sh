#!/usr/bin/env bash
# install_nats_server.sh: installs Debian's nats-server package, which the messaging tests and
# the end-to-end test start on a free loopback port. Idempotent: does nothing when nats-server
# is already on PATH. Needs root (or sudo) and the Debian package mirror.
set -euo pipefail

case ${1-} in
  -h|--help)
    cat <<'USAGE'
Usage: install_nats_server.sh [--json] [--help]

Installs the nats-server Debian package (apt-get) unless nats-server is already on PATH.
Exit codes: 0 installed or already present, 2 could not install.
USAGE
    exit 0 ;;
esac
json=0
[ "${1-}" = --json ] && json=1

report() {
  if [ "$json" = 1 ]; then printf '{"ok":true,"nats_server":"%s","action":"%s"}\n' "$(command -v nats-server)" "$1"
  else printf 'nats-server: %s (%s)\n' "$(command -v nats-server)" "$1"; fi
}

if command -v nats-server >/dev/null 2>&1; then
  report present
  exit 0
fi
sudo_cmd=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install_nats_server.sh: need root or sudo to run apt-get" >&2; exit 2; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >/dev/null || { echo "install_nats_server.sh: apt-get update failed" >&2; exit 2; }
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nats-server >/dev/null \
  || { echo "install_nats_server.sh: apt-get install nats-server failed" >&2; exit 2; }
command -v nats-server >/dev/null 2>&1 || { echo "install_nats_server.sh: nats-server still not on PATH after install" >&2; exit 2; }
report installed
