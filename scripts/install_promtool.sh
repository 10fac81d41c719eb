#!/usr/bin/env bash
# Installs promtool (Debian package "prometheus") so the agent-context metrics test can run
# `promtool check metrics` on a real /metrics scrape. Idempotent; apt-get based; needs root.
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  echo "Usage: bash scripts/install_promtool.sh"
  echo "Installs promtool from the Debian package prometheus (apt-get), unless it is on PATH already."
  exit 0
fi
if command -v promtool >/dev/null 2>&1; then
  echo "promtool: $(command -v promtool)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install_promtool.sh: run as root (apt-get install prometheus)" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The package would start the Prometheus daemon on install; policy-rc.d 101 keeps it stopped.
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d.airlock
chmod +x /usr/sbin/policy-rc.d.airlock
if [ ! -e /usr/sbin/policy-rc.d ]; then cp /usr/sbin/policy-rc.d.airlock /usr/sbin/policy-rc.d; remove_policy=1; else remove_policy=0; fi
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
[ "$remove_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
rm -f /usr/sbin/policy-rc.d.airlock
echo "promtool: $(command -v promtool)"
