#!/usr/bin/env bash
# The README's test command: restores, builds and runs every test project (real Kestrel on 127.0.0.1:0).
# Installs nothing today: the tests need only the .NET SDK (global.json) and NuGet.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
exec dotnet test Freight.slnx --nologo "$@"
