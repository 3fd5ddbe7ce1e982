#!/usr/bin/env bash
# usage: measure.sh ROUNDS GETS_PER_ROUND
# Per round, per server (order rotated by one each round): server utime+stime from /proc/PID/stat around one curl
# of GETS URLs on one keep-alive connection; prints CPU s/GiB.
set -euo pipefail
rounds=$1; gets=$2
tck=$(getconf CLK_TCK)
names=(k1m k0 nginx)
declare -A port=( [k1m]=47723 [k0]=47724 [nginx]=47725 )
declare -A path=( [k1m]=/lab/static/freight/1g.bin [k0]=/lab/static/freight/1g.bin [nginx]=/1g.bin )
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq 1 $rounds); do
  n=${#names[@]}; order=()
  for i in $(seq 0 $((n-1))); do order+=(${names[$(( (i + r - 1) % n ))]}); done
  for name in "${order[@]}"; do
    pid=$(cat /tmp/lw/$name.pid); p=${port[$name]}
    urls=(); for i in $(seq 1 $gets); do urls+=(-o /dev/null "http://127.0.0.1:$p${path[$name]}"); done
    b=$(cpu $pid); t0=$(date +%s.%N)
    out=$(curl -s -w '%{size_download}\n' "${urls[@]}")
    t1=$(date +%s.%N); a=$(cpu $pid)
    bytes=$(echo "$out" | awk '{s+=$1} END {printf "%.0f", s}')
    awk -v n=$name -v r=$r -v d=$((a-b)) -v tck=$tck -v g=$gets -v by=$bytes -v t0=$t0 -v t1=$t1 'BEGIN{s=d/tck; printf "%s round %d: %d GETs, %.0f bytes, server CPU %.2f s, %.3f s/GiB, wall %.2f s\n", n, r, g, by, s, s/(by/1073741824), t1-t0}'
  done
done
