#!/usr/bin/env bash
# The README's test command: restores, builds and runs every test project (real Kestrel on 127.0.0.1:0).
# The peer tests run the real wrk and nginx and fail without them, so a machine missing either gets them
# from scripts/install-peers.sh first when it can (root with apt-get); elsewhere install them by hand.
# Tests that need more install it themselves: the tus tests run `npm ci` for tus-js-client and @tus/server
# (Node.js >= 20.19 and an npm registry needed), the report's render test and the browser CORS test
# (test/interop/browser) `npm ci` for playwright-core and scripts/install-chromium.sh (root with apt-get) when
# /usr/bin/chromium is missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
has() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
if ! has wrk || ! has nginx; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing the bench's peers (wrk, nginx) with scripts/install-peers.sh"
    scripts/install-peers.sh
  else
    echo "test.sh: wrk or nginx is missing and cannot be installed here (needs root and apt-get); the peer tests will fail" >&2
  fi
fi
# -m:1: one test project at a time. The bench's end-to-end tests load both cores for minutes, and the
# load-engine and server tests bound what a stalled or aborted peer does; side by side they would share
# two cores and slow each other down.
exec dotnet test Freight.slnx --nologo -m:1 "$@"
