#!/usr/bin/env bash
# Interleaved invocations of the bench, A = blocks of 64 KiB (the default until this page), D = 256 KiB (environment, as the bench passes it on).
set -euo pipefail
cli=$1; out=$2; mkdir -p "$out"  # usage: ab.sh CLI.dll OUTDIR
i=0
for v in A D D A A D; do
  i=$((i+1))
  case $v in A) envs=(FREIGHT_TransportBlockBytes=65536);; D) envs=(FREIGHT_TransportBlockBytes=262144);; esac
  env "${envs[@]}" dotnet "$cli" bench --suite transfer --max-seconds 0 --no-report --no-progress --json $out/i$i-$v.json > $out/i$i-$v.txt 2>&1
  echo "$i $v $(date +%T)"
done
