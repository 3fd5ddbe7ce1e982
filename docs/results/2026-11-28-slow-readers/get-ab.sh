#!/usr/bin/env bash
# 1 GiB GETs (sendfile unless SERVE_ARGS say otherwise) with curl against two builds of `freight serve` side by side, as a fast client sees them.
# usage: get-ab.sh BEFORE_DLL AFTER_DLL ROUNDS GETS_PER_ROUND [SERVE_ARGS...]   (e.g. --Freight:SendFile false: the copying path)
# Each server gets its own data dir with the same 1 GiB of random bytes (hard links) and 20 warm-up GETs; then per
# round, the order alternating, one curl of GETS URLs on one keep-alive connection per server, its utime+stime from
# /proc/PID/stat before and after, and the bytes received checked.
set -euo pipefail
before=$1; after=$2; rounds=$3; gets=$4; shift 4; serve_args=("$@")
dir=${TMPDIR:-/tmp}/slow-readers-get
tck=$(getconf CLK_TCK)
mkdir -p "$dir"
[ -f "$dir/1g.bin" ] || head -c 1073741824 /dev/urandom > "$dir/1g.bin"
declare -A dll=( [before]=$before [after]=$after ) port=( [before]=47731 [after]=47732 ) pid=()
for name in before after; do
  mkdir -p "$dir/data-$name/lab/static"; ln -f "$dir/1g.bin" "$dir/data-$name/lab/static/1g.bin"
  dotnet "${dll[$name]}" serve --urls "http://127.0.0.1:${port[$name]}" --data-dir "$dir/data-$name" "${serve_args[@]}" > "$dir/$name.log" 2>&1 &
  pid[$name]=$!
done
trap 'kill ${pid[before]} ${pid[after]} 2>/dev/null' EXIT
sleep 5
gets_of() { local p=$1 n=$2 urls=(); for i in $(seq 1 "$n"); do urls+=(-o /dev/null "http://127.0.0.1:$p/lab/static/freight/1g.bin"); done
  curl -s -w '%{size_download}\n' "${urls[@]}" | awk '{s+=$1} END {printf "%.0f", s}'; }
for name in before after; do gets_of "${port[$name]}" 20 > /dev/null; done
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq 1 "$rounds"); do
  order=(before after); [ $((r % 2)) -eq 0 ] && order=(after before)
  for name in "${order[@]}"; do
    b=$(cpu "${pid[$name]}"); bytes=$(gets_of "${port[$name]}" "$gets"); a=$(cpu "${pid[$name]}")
    [ "$bytes" -eq $((gets * 1073741824)) ] || { echo "$name round $r: $bytes bytes, expected $((gets * 1073741824))" >&2; exit 1; }
    awk -v n="$name" -v r="$r" -v d=$((a - b)) -v tck="$tck" -v by="$bytes" 'BEGIN{printf "%s round %d: server CPU %.2f s, %.3f s/GiB\n", n, r, d/tck, d/tck/(by/1073741824)}'
  done
done
