#!/usr/bin/env bash
# Rounds of the files suite's PUT rows, order rotated (D 256 KiB blocks; B 1 MiB; K 1 MiB and Kestrel's request buffer at 4 MiB through request-buffer.patch's switch).
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
      K) envs=(FREIGHT_TransportBlockBytes=1048576 FREIGHT_TEMP_MAXREQBUF=4194304) ;;
    esac
    env "${envs[@]}" dotnet "$cli" bench --suite files --filter put --size 1073741824 --runs 10 --max-seconds 0 \
      --no-report --no-progress --json "$out/r$r-$v.json" > "$out/r$r-$v.txt" 2>&1
    echo "round $r $v done $(date +%T)"
  done
done
