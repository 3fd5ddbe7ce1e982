#!/usr/bin/env bash
# 1 GiB files-API GETs (sendfile) with curl: servers side by side (env per server), each warmed with 40 GETs, rounds alternating.
# Usage: get-ab.sh CLI ROUNDS "NAME:ENV ..." ...  (e.g. "A:FREIGHT_InlineScheduling=false" "B:X=1")
set -euo pipefail
cli="$1"; rounds="$2"; shift 2
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
head -c 1073741824 /dev/urandom > "$work/big.bin"
names=(); declare -A pid port
p=18460
for spec in "$@"; do
  name="${spec%%:*}"; envs="${spec#*:}"
  env $envs dotnet "$cli" serve --urls http://127.0.0.1:$p --data-dir "$work/$name" > "$work/$name.log" 2>&1 & pid[$name]=$!; port[$name]=$p
  names+=("$name"); p=$((p+1))
done
sleep 6
put() { curl -sS "http://127.0.0.1:${port[$1]}/files/x.bin" -o /dev/null -w "200 %{size_download} %{speed_download}"; }
for n in "${names[@]}"; do curl -sS -T "$work/big.bin" "http://127.0.0.1:${port[$n]}/files/x.bin" -o /dev/null; for i in $(seq 40); do put $n > /dev/null; done; done
for r in $(seq "$rounds"); do
  line="round $r (load $(cut -d' ' -f1 /proc/loadavg)):"
  k=$(( r % ${#names[@]} ))
  for j in $(seq 0 $(( ${#names[@]} - 1 ))); do
    n=${names[$(( (j + k) % ${#names[@]} ))]}
    sync; a=$(awk '{print $14+$15}' /proc/${pid[$n]}/stat)
    out=$(put $n); set -- $out
    b=$(awk '{print $14+$15}' /proc/${pid[$n]}/stat)
    [ "$1" = 200 ] && [ "$2" = 1073741824 ] || { echo "bad GET: $out"; exit 1; }
    line="$line $n $(echo "scale=2; ($b - $a) / 100" | bc) s/GiB $(echo "$3 / 1048576" | bc) MiB/s;"
  done
  echo "$line"
done
