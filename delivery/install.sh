#!/usr/bin/env bash
# install.sh: installs an Airlock release archive on a host with no network and no Node. It
# checks SHA256SUMS first (any mismatch: exit 1, nothing written), then copies the release under
# --prefix, links each command to bin/airlock, creates one system user per service, makes each
# service's data directory and writes the systemd units with the paths filled in. Files are
# written only when their bytes differ, so a second run changes nothing. --uninstall removes what
# it wrote (listed in <prefix>/.airlock-installed) and keeps the data directories and users.
set -euo pipefail

die() { printf 'install.sh: %s\n' "$1" >&2; exit "${2:-2}"; }

usage() {
  cat <<'USAGE'
Usage: install.sh [--prefix DIR] [--data-dir DIR] [--unit-dir DIR] [--profile NAME] [--allow-ip ADDR]...
                  [--no-users] [--enable] [--uninstall] [--help]

Verifies SHA256SUMS of this unpacked release, then installs it:
  <prefix>/bin/airlock, <prefix>/bin/<command> -> airlock   every service and verifier
  <prefix>/dist, contracts, configs, docs, sbom.cdx.json     bundles (for hosts with Node >= 24) and data
  <unit dir>/airlock-*.service, *.timer                      one unit per service role and healthcheck
  <data dir>/<service>                                       owned by the service's user airlock-<service>

Options:
  --prefix DIR    install prefix (default: /opt/airlock)
  --data-dir DIR  parent of the per-service data directories (default: /var/lib/airlock)
  --unit-dir DIR  where the units go (default: /etc/systemd/system)
  --profile NAME  healthcheck intervals of a deployment profile the manifests name (low_cpu, production, ...)
                  where a timer has one; the default interval elsewhere
  --allow-ip ADDR an IP address or CIDR block (10.0.0.5, 10.0.0.0/24, fd00::/8) off loopback that the
                  services with network peers (NATS, OpenID provider, agent runtime, governance...) may
                  reach; repeat for each. Without it every unit reaches loopback only.
  --no-users      create no system users (the units still name them)
  --enable        systemctl daemon-reload, then enable --now every unit and timer
  --uninstall     remove what an earlier run installed; keep the data directories and users
  -h, --help      show this help

Exit codes: 0 installed (or removed), 1 SHA256SUMS does not match, 2 usage or environment error
USAGE
}

prefix=/opt/airlock data_dir=/var/lib/airlock unit_dir=/etc/systemd/system profile=default users=1 enable=0 uninstall=0
allow_ips=()
while [ $# -gt 0 ]; do
  case $1 in
    --prefix|--data-dir|--unit-dir|--profile)
      [ -n "${2-}" ] && [ "${2#--}" = "$2" ] || die "$1 needs a value; run install.sh --help"
      case $1 in --prefix) prefix=$2 ;; --data-dir) data_dir=$2 ;; --profile) profile=$2 ;; *) unit_dir=$2 ;; esac
      shift 2 ;;
    --allow-ip)
      [ -n "${2-}" ] && [ "${2#--}" = "$2" ] || die "$1 needs a value; run install.sh --help"
      ipv4='^([0-9]{1,3}\.){3}[0-9]{1,3}(/[0-9]{1,2})?$' ipv6='^[0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){2,7}(/[0-9]{1,3})?$'
      [[ $2 =~ $ipv4 || $2 =~ $ipv6 ]] || die "--allow-ip \"$2\" is not an IP address or CIDR block (10.0.0.5, 10.0.0.0/24, fd00::/8)"
      allow_ips+=("$2"); shift 2 ;;
    --no-users) users=0; shift ;;
    --enable) enable=1; shift ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument \"$1\"; run install.sh --help" ;;
  esac
done
for path in "$prefix" "$data_dir" "$unit_dir"; do
  case $path in /*) ;; *) die "\"$path\" is not an absolute path" ;; esac
  case $path in *[!A-Za-z0-9/._-]*) die "\"$path\" holds characters other than letters, digits and / . _ -: choose a plain path" ;; esac
done
case $profile in *[!a-z0-9_-]*) die "--profile \"$profile\" is not a profile name (letters, digits, _ and -)" ;; esac
prefix=${prefix%/} data_dir=${data_dir%/} unit_dir=${unit_dir%/}
record=$prefix/.airlock-installed

if [ "$uninstall" = 1 ]; then
  [ -f "$record" ] || die "nothing to uninstall: $record is missing"
  removed=0
  units=()
  while IFS= read -r path; do
    case $path in "$unit_dir"/*) units+=("$(basename "$path")") ;; esac
  done <"$record"
  if [ "$enable" = 1 ] || { command -v systemctl >/dev/null 2>&1 && [ "$unit_dir" = /etc/systemd/system ] && [ ${#units[@]} -gt 0 ]; }; then
    systemctl disable --now "${units[@]}" >/dev/null 2>&1 || true
  fi
  while IFS= read -r path; do
    case $path in "$data_dir"|"$data_dir"/*) continue ;; esac
    if [ -e "$path" ] || [ -L "$path" ]; then rm -f "$path"; removed=$((removed + 1)); fi
    # Its folders inside the prefix, when that left them empty (never anything above the prefix).
    dir=$(dirname "$path")
    while [ "${dir#"$prefix"/}" != "$dir" ] && rmdir "$dir" 2>/dev/null; do dir=$(dirname "$dir"); done
  done <"$record"
  rm -f "$record"
  rmdir "$prefix" 2>/dev/null || true
  command -v systemctl >/dev/null 2>&1 && [ "$unit_dir" = /etc/systemd/system ] && systemctl daemon-reload >/dev/null 2>&1 || true
  printf 'install.sh: removed %s files; kept %s and the service users\n' "$removed" "$data_dir"
  exit 0
fi

# 1. Verify before anything else: every file listed must match, and nothing unlisted may ride along.
release=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$release"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum (coreutils) is needed to verify the release"
[ -f SHA256SUMS ] || die "SHA256SUMS is missing beside install.sh: is this an unpacked release?" 1
if ! sha256sum --check --strict --quiet SHA256SUMS >&2; then
  die "SHA256SUMS does not match the files of $release: nothing installed (copy the archive again and compare its hash)" 1
fi
listed=$(sed 's/^[0-9a-f]\{64\}  //' SHA256SUMS | LC_ALL=C sort)
# Everything but folders: a symbolic link or other non-file must be listed too (it never is).
present=$(find . ! -type d ! -path ./SHA256SUMS -printf '%P\n' | LC_ALL=C sort)
if [ "$listed" != "$present" ]; then
  die "files beside install.sh differ from SHA256SUMS: $(diff <(printf '%s\n' "$listed") <(printf '%s\n' "$present") | sed -n 's/^[<>] //p' | head -n 5 | tr '\n' ' ')- nothing installed" 1
fi

changed=0 unchanged=0
declare -a written=()
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# put SOURCE TARGET MODE: copies SOURCE unless TARGET has its bytes and mode (then nothing is
# touched, not even the folder).
put() {
  local target=$2 tmp
  written+=("$target")
  if [ -f "$target" ] && [ ! -L "$target" ] && [ "$(stat -c %a "$target")" = "${3#0}" ] && cmp -s "$1" "$target"; then
    unchanged=$((unchanged + 1))
    return
  fi
  mkdir -p "$(dirname "$target")"
  tmp=$(mktemp "$(dirname "$target")/.airlock.XXXXXX")
  cat "$1" >"$tmp"
  chmod "$3" "$tmp"
  mv -f "$tmp" "$target"
  changed=$((changed + 1))
}

# 2. The release's files.
while IFS= read -r path; do
  case $path in systemd/*|install.sh) continue ;; esac
  mode=0644
  [ -x "$path" ] && mode=0755
  put "$path" "$prefix/$path" "$mode"
done < <(printf '%s\n' "$listed")
put SHA256SUMS "$prefix/SHA256SUMS" 0644

# 3. A link per command: <prefix>/bin/<command> runs it (airlock dispatches on its name).
while IFS= read -r bundle; do
  case $bundle in dist/bin/*.mjs) ;; *) continue ;; esac
  name=$(basename "$bundle" .mjs)
  [ "$name" = airlock ] && continue
  link=$prefix/bin/$name
  written+=("$link")
  if [ "$(readlink "$link" 2>/dev/null)" = airlock ]; then unchanged=$((unchanged + 1)); else ln -sfn airlock "$link"; changed=$((changed + 1)); fi
done < <(printf '%s\n' "$listed")

# 4. Users and data directories, as the units name them.
mapfile -t service_users < <(sed -n 's/^User=//p' systemd/*.service | LC_ALL=C sort -u)
for user in "${service_users[@]}"; do
  service=${user#airlock-}
  if [ "$users" = 1 ] && ! getent passwd "$user" >/dev/null 2>&1; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --comment "Airlock $service" "$user" \
      || die "cannot create the system user $user (run as root, or pass --no-users)"
    changed=$((changed + 1))
  fi
  dir=$data_dir/$service
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    chmod 0750 "$dir"
    changed=$((changed + 1))
  fi
  if [ "$users" = 1 ] && id -u "$user" >/dev/null 2>&1 && [ "$(stat -c %U "$dir")" != "$user" ]; then chown "$user:$user" "$dir"; changed=$((changed + 1)); fi
done

# 5. The units, with this install's paths.
for unit in systemd/*; do
  sed -e "s|@AIRLOCK_PREFIX@|$prefix|g" -e "s|@AIRLOCK_DATA_DIR@|$data_dir|g" "$unit" >"$scratch/unit"
  # A timer lists each profile's interval as "# profile NAME: OnUnitActiveSec=Ns".
  interval=$(sed -n "s/^# profile $profile: \(OnUnitActiveSec=[0-9]*s\)\$/\1/p" "$unit")
  [ -z "$interval" ] || sed -i "s/^OnUnitActiveSec=.*/$interval/" "$scratch/unit"
  # A service with network peers may reach the --allow-ip addresses too (allow lists add up).
  for ((i = ${#allow_ips[@]} - 1; i >= 0; i--)); do sed -i "/^# Peers off loopback: /a IPAddressAllow=${allow_ips[i]}" "$scratch/unit"; done
  put "$scratch/unit" "$unit_dir/$(basename "$unit")" 0644
done

# 6. What was written, for --uninstall (rewritten only when it changes).
written+=("$record")
printf '%s\n' "${written[@]}" | LC_ALL=C sort >"$scratch/record"
put "$scratch/record" "$record" 0644
changed_record=$changed

if [ "$enable" = 1 ]; then
  systemctl daemon-reload
  for unit in systemd/*.service; do
    name=$(basename "$unit")
    [ -f "systemd/${name%.service}.timer" ] && continue
    systemctl enable --now "$name"
  done
  for timer in systemd/*.timer; do [ -f "$timer" ] && systemctl enable --now "$(basename "$timer")"; done
fi
printf 'install.sh: %s changed, %s unchanged under %s (units in %s, data in %s)\n' "$changed_record" "$unchanged" "$prefix" "$unit_dir" "$data_dir"
