#!/usr/bin/env bash
# The runs of 2026-11-27-kestrel-floor.md: builds the floor app (Program.cs, floor.csproj) outside the repository,
# then scripts/static-cost.sh with freight serve, the floor app several ways, and nginx, on the same files.
#   run.sh FREIGHT_CLI_DLL [ROUNDS] [OUT] [SET]
#   SET: floors (the first table, default) or nohop (the section "No hop at all", its third run)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../../.."
cli="$1"; rounds="${2:-6}"; out="${3:-${TMPDIR:-/tmp}/kestrel-floor}"; set="${4:-floors}"
build="$(mktemp -d)"; trap 'rm -rf "$build"' EXIT
cp "$here/Program.cs" "$here/floor.csproj" "$build/"
dotnet build "$build/floor.csproj" -c Release -o "$build/out" --nologo -v quiet >&2
floor="$build/out/floor.dll"
files="$out/data-freight/lab/static"   # the files freight serve writes; the floor app serves the same
inline="DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1"
case "$set" in
  floors)
    "$root/scripts/static-cost.sh" --rounds "$rounds" --seconds 3 --sizes "4096 16384 131072" --out "$out" \
      "freight=$cli" \
      "kestrel=$floor,FLOOR_DIR=$files" \
      "kinline=$floor,FLOOR_DIR=$files,FLOOR_MODE=kestrel-inline,$inline" \
      "sockets=$floor,FLOOR_DIR=$files,FLOOR_MODE=sockets" \
      nginx ;;
  nohop)
    "$root/scripts/static-cost.sh" --rounds "$rounds" --seconds 3 --sizes "4096 16384 131072 1048576" --out "$out" \
      "freight=$cli" \
      "freightinl=$cli,FREIGHT_InlineScheduling=true,$inline" \
      "kconn=$floor,FLOOR_DIR=$files,FLOOR_MODE=kestrel-conn" \
      "kconninl=$floor,FLOOR_DIR=$files,FLOOR_MODE=kestrel-conn-inline,$inline" \
      "sfinl=$floor,FLOOR_DIR=$files,FLOOR_MODE=sockets-sendfile,$inline" \
      nginx ;;
  *) echo "run.sh: SET is floors or nohop" >&2; exit 2 ;;
esac
