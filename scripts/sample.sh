#!/usr/bin/env bash
# Packs Freight, Freight.AspNetCore and Freight.Storage.S3 into artifacts/feed and builds samples/Freight.Sample from
# that feed into artifacts/sample, with a fresh packages folder so that a stale cached package of the same version is
# never used. Then: dotnet artifacts/sample/Freight.Sample.dll --urls http://127.0.0.1:8080
# Usage: scripts/sample.sh [packages-folder]   (default: a new temp folder)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
feed="$root/artifacts/feed"
out="$root/artifacts/sample"
packages="${1:-$(mktemp -d -t freight-sample-packages.XXXXXX)}"

rm -rf "$feed" "$out" "$root/samples/Freight.Sample/obj" "$root/samples/Freight.Sample/bin"
mkdir -p "$feed"
for project in Freight Freight.AspNetCore Freight.Storage.S3; do
  dotnet pack "$root/src/$project" -c Release -o "$feed" --nologo -v q
done
dotnet restore "$root/samples/Freight.Sample" --packages "$packages" --nologo -v q
dotnet build "$root/samples/Freight.Sample" -c Release --no-restore -o "$out" --nologo -v q
echo "sample: $out/Freight.Sample.dll (packages from $feed, restored into $packages)"
