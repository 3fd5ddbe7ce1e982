#!/usr/bin/env bash
# usage: measure.sh ROUNDS GETS_PER_ROUND PATH
# servers: off (base, SendFile false) :47711, on (base) :47712, after :47713
set -euo pipefail
rounds=$1; gets=$2; path=$3
tck=$(getconf CLK_TCK)
declare -A port=( [off]=47711 [on]=47712 [after]=47713 [lazy]=47714 )
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq 1 $rounds); do
  order="off on after lazy"; [ $((r % 2)) -eq 0 ] && order="lazy after on off"
  for name in $order; do
    pid=$(cat /tmp/lowat-m/$name.pid); p=${port[$name]}
    urls=(); for i in $(seq 1 $gets); do urls+=(-o /dev/null "http://127.0.0.1:$p$path"); done
    b=$(cpu $pid); t0=$(date +%s.%N)
    out=$(curl -s -w '%{size_download}\n' "${urls[@]}")
    t1=$(date +%s.%N); a=$(cpu $pid)
    bytes=$(echo "$out" | awk '{s+=$1} END {print s}')
    awk -v n=$name -v r=$r -v d=$((a-b)) -v tck=$tck -v g=$gets -v by=$bytes -v t0=$t0 -v t1=$t1 'BEGIN{s=d/tck; printf "%s round %d: %d GETs, %.0f bytes, server CPU %.2f s, %.0f us/response, %.3f s/GiB, wall %.2f s\n", n, r, g, by, s, s*1e6/g, s/(by/1073741824), t1-t0}'
  done
done
