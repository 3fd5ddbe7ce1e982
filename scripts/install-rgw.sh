#!/usr/bin/env bash
# Installs Ceph's RADOS Gateway and the daemons it needs (mon, mgr, osd) for scripts/rgw.sh, which runs a
# single-node cluster on 127.0.0.1 for the S3 store's tests. Debian/Ubuntu, as root. Idempotent and a
# quick no-op when everything is present; apt-get update runs only when the package lists cannot supply
# the packages. rgw.sh starts its own daemons (all state in its work directory, no systemd), so the
# packages' services are kept from starting while they install.
set -euo pipefail

has() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

# Each package with a program that rgw.sh runs from it.
declare -A provides=(
  [ceph-mon]=ceph-mon
  [ceph-mgr]=ceph-mgr
  [ceph-osd]=ceph-osd
  [radosgw]=radosgw
  [ceph-common]=radosgw-admin
  [curl]=curl
)
missing=()
for package in ceph-mon ceph-mgr ceph-osd radosgw ceph-common curl; do
  has "${provides[$package]}" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-rgw: ceph-mon, ceph-mgr, ceph-osd, radosgw, ceph-common and curl already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-rgw: cannot install ${missing[*]}: needs root and apt-get (Debian/Ubuntu)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive

# A package is installable when apt knows a candidate version; otherwise the lists are missing or stale.
installable() { [ -n "$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" { print $2 }')" ]; }
for package in "${missing[@]}"; do
  if ! installable "$package"; then
    apt-get update -qq
    break
  fi
done

# Debian policy (invoke-rc.d): a policy-rc.d that exits 101 forbids maintainer scripts to start services.
# Only added when none exists (containers often ship one), and removed afterwards.
policy=/usr/sbin/policy-rc.d
added_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"
  chmod 755 "$policy"
  added_policy=1
fi
cleanup() { if [ "$added_policy" -eq 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT

# About 100 packages (~290 MB) on Debian 12: Ceph Pacific (16.2).
install_missing() { apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
# Lists that name a version the mirror no longer has: refresh once and retry.
install_missing || { apt-get update -qq && install_missing; }

for package in "${missing[@]}"; do
  if ! has "${provides[$package]}"; then
    echo "install-rgw: $package installed but ${provides[$package]} is not on the PATH" >&2
    exit 1
  fi
done
echo "install-rgw: installed ${missing[*]}"
