#!/usr/bin/env bash
# The README's test command: restores, builds and runs every test project (real Kestrel on 127.0.0.1:0).
# Installs nothing today: the tests need only the .NET SDK (global.json) and NuGet.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
# -m:1: one test project at a time. The bench's end-to-end tests load both cores for minutes, and the
# load-engine and server tests bound what a stalled or aborted peer does; side by side they would share
# two cores and slow each other down.
exec dotnet test Freight.slnx --nologo -m:1 "$@"
