#!/usr/bin/env bash
# As buffer/ab.sh, but K's Kestrel__Limits__MaxRequestBufferSize never reached Kestrel (freight serve's options do not bind it), so K ran as B: an unplanned repeat of B.
set -euo pipefail
cli=$1; rounds=$2; out=$3; mkdir -p "$out"
variants=(D B K)
n=${#variants[@]}
for ((r = 1; r <= rounds; r++)); do
  for ((i = 0; i < n; i++)); do
    v=${variants[$(( (i + r) % n ))]}
    case $v in
      D) envs=(FREIGHT_TransportBlockBytes=262144) ;;
      B) envs=(FREIGHT_TransportBlockBytes=1048576) ;;
      K) envs=(FREIGHT_TransportBlockBytes=1048576 Kestrel__Limits__MaxRequestBufferSize=4194304) ;;
    esac
    env "${envs[@]}" dotnet "$cli" bench --suite files --filter put --size 1073741824 --runs 10 --max-seconds 0 \
      --no-report --no-progress --json "$out/r$r-$v.json" > "$out/r$r-$v.txt" 2>&1
    echo "round $r $v done $(date +%T)"
  done
done
