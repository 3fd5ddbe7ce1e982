#!/usr/bin/env bash
# Rounds of the files suite's PUT rows, one bench run a variant a round, order rotated.
set -euo pipefail
cli=$1; rounds=$2; out=$3; mkdir -p "$out"
variants=(A B E)
for ((r = 1; r <= rounds; r++)); do
  for ((i = 0; i < 3; i++)); do
    v=${variants[$(( (i + r) % 3 ))]}
    case $v in
      A) envs=() ;;
      B) envs=(FREIGHT_TransportBlockBytes=1048576) ;;
      C) envs=(FREIGHT_InlineScheduling=true) ;;
      D) envs=(FREIGHT_TransportBlockBytes=262144) ;;
      E) envs=(FREIGHT_TransportBlockBytes=1048576 DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0) ;;
    esac
    env "${envs[@]}" dotnet "$cli" bench --suite files --filter put --size 1073741824 --runs 10 --max-seconds 0 \
      --no-report --no-progress --json "$out/r$r-$v.json" > "$out/r$r-$v.txt" 2>&1
    echo "round $r $v done $(date +%T)"
  done
done
