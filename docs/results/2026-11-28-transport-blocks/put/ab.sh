#!/usr/bin/env bash
# Rounds of the files suite's PUT rows, one bench run a variant a round, order rotated (A 64 KiB blocks; D 256 KiB; M 256 KiB and rcvlowat.patch on).
set -euo pipefail
cli=$1; rounds=$2; out=$3; mkdir -p "$out"
variants=(A D M)
n=${#variants[@]}
for ((r = 1; r <= rounds; r++)); do
  for ((i = 0; i < n; i++)); do
    v=${variants[$(( (i + r) % n ))]}
    case $v in
      A) envs=(FREIGHT_TransportBlockBytes=65536) ;;
    
      D) envs=(FREIGHT_TransportBlockBytes=262144) ;;
      M) envs=(FREIGHT_RCVLOWAT=1 FREIGHT_TransportBlockBytes=262144) ;;
    esac
    env "${envs[@]}" dotnet "$cli" bench --suite files --filter put --size 1073741824 --runs 10 --max-seconds 0 \
      --no-report --no-progress --json "$out/r$r-$v.json" > "$out/r$r-$v.txt" 2>&1
    echo "round $r $v done $(date +%T)"
  done
done
