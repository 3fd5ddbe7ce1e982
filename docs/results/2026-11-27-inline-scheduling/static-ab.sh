#!/usr/bin/env bash
# wrk -t1 -c32 against /lab/static/freight/SIZE.bin on servers side by side (env per server), rounds alternating.
# Prints req/s and server CPU µs a response. Usage: static-ab.sh CLI ROUNDS SECONDS SIZE "NAME:ENV" ...
set -euo pipefail
cli="$1"; rounds="$2"; seconds="$3"; size="$4"; shift 4
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
names=(); declare -A pid port; p=18470
for spec in "$@"; do
  name="${spec%%:*}"; envs="${spec#*:}"
  env $envs dotnet "$cli" serve --urls http://127.0.0.1:$p --data-dir "$work/$name" > "$work/$name.log" 2>&1 & pid[$name]=$!; port[$name]=$p
  names+=("$name"); p=$((p+1))
done
sleep 6
for n in "${names[@]}"; do wrk -t1 -c32 -d2s "http://127.0.0.1:${port[$n]}/lab/static/freight/$size.bin" > /dev/null; done
for r in $(seq "$rounds"); do
  line="round $r (load $(cut -d' ' -f1 /proc/loadavg)):"
  k=$(( r % ${#names[@]} ))
  for j in $(seq 0 $(( ${#names[@]} - 1 ))); do
    n=${names[$(( (j + k) % ${#names[@]} ))]}
    a=$(awk '{print $14+$15}' /proc/${pid[$n]}/stat)
    out=$(wrk -t1 -c32 -d${seconds}s "http://127.0.0.1:${port[$n]}/lab/static/freight/$size.bin")
    b=$(awk '{print $14+$15}' /proc/${pid[$n]}/stat)
    if echo "$out" | grep -q "Non-2xx\|Socket errors"; then echo "errors: $out"; exit 1; fi
    reqs=$(echo "$out" | awk '/requests in/ {print $1}'); rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    line="$line $n $rate req/s $(echo "scale=1; ($b - $a) * 10000 / $reqs" | bc) us;"
  done
  echo "$line"
done
