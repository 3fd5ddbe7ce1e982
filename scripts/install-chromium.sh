#!/usr/bin/env bash
# Installs Debian's chromium, the headless browser the HTML report's render test and the browser CORS test
# (test/interop/browser) drive (through playwright-core, executablePath /usr/bin/chromium). Debian/Ubuntu, as root. Idempotent and a quick no-op
# when /usr/bin/chromium is there; apt-get update runs only when the package lists cannot supply it.
set -euo pipefail

browser=/usr/bin/chromium
if [ -x "$browser" ]; then
  echo "install-chromium: $browser already installed"
  exit 0
fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium: cannot install chromium: needs root and apt-get (Debian/Ubuntu)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive

# A package is installable when apt knows a candidate version; otherwise the lists are missing or stale.
installable() { [ -n "$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" { print $2 }')" ]; }
if ! installable chromium; then
  apt-get update -qq
fi

# Fonts come with chromium's recommends on a desktop; a minimal image has none, and text would not render.
install() { apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; }
# Lists that name a version the mirror no longer has: refresh once and retry.
install || { apt-get update -qq && install; }

if [ ! -x "$browser" ]; then
  echo "install-chromium: the chromium package installed but $browser is missing" >&2
  exit 1
fi

echo "install-chromium: installed $("$browser" --version 2>/dev/null || echo chromium)"
