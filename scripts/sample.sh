#!/usr/bin/env bash
# Packs Freight, Freight.AspNetCore and Freight.Storage.S3 into artifacts/feed and builds samples/Freight.Sample from
# that feed into artifacts/sample, with a fresh packages folder so that a stale cached package of the same version is
# never used. Then: dotnet artifacts/sample/Freight.Sample.dll --urls http://127.0.0.1:8080
# Usage: scripts/sample.sh [--out DIR] [packages-folder]   (packages-folder's default: a new temp folder)
#   --out DIR: everything goes under DIR (DIR/feed, DIR/sample, and the builds' bin and obj in DIR/build), nothing into
#   the checkout, which may then be read-only. Then: dotnet DIR/sample/Freight.Sample.dll
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out=""
if [ "${1:-}" = "--out" ]; then
  [ -n "${2:-}" ] || { echo "usage: scripts/sample.sh [--out DIR] [packages-folder]" >&2; exit 2; }
  mkdir -p "$2"
  out="$(cd "$2" && pwd)"
  shift 2
fi
packages="${1:-$(mktemp -d -t freight-sample-packages.XXXXXX)}"

if [ -z "$out" ]; then
  feed="$root/artifacts/feed"
  sample="$root/artifacts/sample"
  rm -rf "$feed" "$sample" "$root/samples/Freight.Sample/obj" "$root/samples/Freight.Sample/bin"
  build=()
  # samples/nuget.config adds artifacts/feed to the machine's sources.
  sources=()
else
  feed="$out/feed"
  sample="$out/sample"
  rm -rf "$feed" "$sample" "$out/build"
  build=(--artifacts-path "$out/build")
  # samples/nuget.config's artifacts/feed is not there (restore would stop at a missing source): name the sources
  # instead, this feed and the machine's (the ones a folder outside the checkout sees).
  sources=(--source "$feed")
  while IFS= read -r source; do
    sources+=(--source "$source")
  done < <(cd "$out" && dotnet nuget list source --format short | sed -n 's/^E //p')
fi

mkdir -p "$feed"
for project in Freight Freight.AspNetCore Freight.Storage.S3; do
  dotnet pack "$root/src/$project" -c Release -o "$feed" "${build[@]}" --nologo -v q
done
dotnet restore "$root/samples/Freight.Sample" --packages "$packages" "${sources[@]}" "${build[@]}" --nologo -v q
dotnet build "$root/samples/Freight.Sample" -c Release --no-restore -o "$sample" "${build[@]}" --nologo -v q
echo "sample: $sample/Freight.Sample.dll (packages from $feed, restored into $packages)"
