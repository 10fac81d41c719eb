#!/usr/bin/env bash
# install_chromium.sh: installs Debian's chromium package, which the content repository's
# browser test (test/content/browser.test.ts) drives headless through the DevTools protocol.
# Idempotent: when /usr/bin/chromium already runs, it changes nothing. Needs root (or sudo) and
# the Debian package mirror; .ci/run calls it before npm test.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: install_chromium.sh [--json] [--help]

Installs the Debian package "chromium" (apt-get) unless /usr/bin/chromium is already present,
then prints its version. Exit codes: 0 installed or already present, 2 cannot install.

Options:
  --json      print the result as one JSON document
  -h, --help  show this help
USAGE
}

json=0
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --json) json=1 ;;
    *) echo "install_chromium.sh: unknown argument \"$arg\": see --help" >&2; exit 2 ;;
  esac
done

action=present
if ! /usr/bin/chromium --version >/dev/null 2>&1; then
  action=installed
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install_chromium.sh: need root or sudo to run apt-get" >&2; exit 2; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >/dev/null || { echo "install_chromium.sh: apt-get update failed" >&2; exit 2; }
  $sudo apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >/dev/null \
    || { echo "install_chromium.sh: apt-get install chromium failed" >&2; exit 2; }
fi
version=$(/usr/bin/chromium --version 2>/dev/null | head -n 1)
if [ "$json" -eq 1 ]; then
  printf '{"ok":true,"action":"%s","path":"/usr/bin/chromium","version":"%s"}\n' "$action" "$version"
else
  echo "chromium $action: $version"
fi
