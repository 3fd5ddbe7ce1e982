#!/usr/bin/env bash
# The floors run of 2026-11-27-kestrel-floor.md: builds the floor app (Program.cs, floor.csproj) outside the repository,
# then scripts/static-cost.sh with freight serve, the floor app three ways, and nginx, on the same files.
#   run.sh FREIGHT_CLI_DLL [ROUNDS] [OUT]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../../.."
cli="$1"; rounds="${2:-6}"; out="${3:-${TMPDIR:-/tmp}/kestrel-floor}"
build="$(mktemp -d)"; trap 'rm -rf "$build"' EXIT
cp "$here/Program.cs" "$here/floor.csproj" "$build/"
dotnet build "$build/floor.csproj" -c Release -o "$build/out" --nologo -v quiet >&2
floor="$build/out/floor.dll"
files="$out/data-freight/lab/static"   # the files freight serve writes; the floor app holds the same in memory
"$root/scripts/static-cost.sh" --rounds "$rounds" --seconds 3 --sizes "4096 16384 131072" --out "$out" \
  "freight=$cli" \
  "kestrel=$floor,FLOOR_DIR=$files" \
  "kinline=$floor,FLOOR_DIR=$files,FLOOR_MODE=kestrel-inline,DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1" \
  "sockets=$floor,FLOOR_DIR=$files,FLOOR_MODE=sockets" \
  nginx
