#!/usr/bin/env bash
# Installs the peers the bench compares against: wrk (a second load generator) and nginx (the static-file
# peer), and perf (Debian's linux-perf: the bench counts the server's instructions per byte with `perf stat`
# where the machine allows; optional, so a system without the package gets the others). Debian/Ubuntu, as root. Idempotent and a quick no-op when both are present; apt-get update runs
# only when the package lists cannot supply them. The bench starts its own nginx (one process on a
# loopback port, all state in its work directory), so the system's nginx service is kept from starting
# while the package installs, and left stopped and disabled.
set -euo pipefail

has() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }

missing=()
has wrk || missing+=(wrk)
has nginx || missing+=(nginx)
want_perf=0
has perf || want_perf=1
if [ ${#missing[@]} -eq 0 ] && [ "$want_perf" -eq 0 ]; then
  echo "install-peers: wrk, nginx and perf already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  if [ ${#missing[@]} -eq 0 ]; then
    echo "install-peers: perf not installed (needs root and apt-get); the bench says instructions were not counted"
    exit 0
  fi
  echo "install-peers: cannot install ${missing[*]}: needs root and apt-get (Debian/Ubuntu)" >&2
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

install_missing() { [ ${#missing[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
# Lists that name a version the mirror no longer has: refresh once and retry.
install_missing || { apt-get update -qq && install_missing; }

# perf is optional: Debian's linux-perf (Ubuntu names it otherwise); a failure is said, not fatal.
if [ "$want_perf" -eq 1 ]; then
  if { installable linux-perf || { apt-get update -qq && installable linux-perf; }; } \
      && apt-get install -y -qq --no-install-recommends linux-perf >/dev/null; then
    missing+=(linux-perf)
  else
    echo "install-peers: linux-perf not installable here; the bench will say instructions were not counted" >&2
  fi
fi

if [[ " ${missing[*]} " == *" nginx "* ]]; then
  # Should the package have started its service anyway, stop it; and keep it from starting at boot.
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl disable --now nginx >/dev/null 2>&1 || true
  else
    if [ -s /run/nginx.pid ] && kill -0 "$(cat /run/nginx.pid)" 2>/dev/null; then
      nginx -s stop 2>/dev/null || kill "$(cat /run/nginx.pid)" 2>/dev/null || true
    fi
    if command -v update-rc.d >/dev/null 2>&1; then
      update-rc.d nginx disable >/dev/null 2>&1 || true
    fi
  fi
fi

echo "install-peers: installed ${missing[*]}"
