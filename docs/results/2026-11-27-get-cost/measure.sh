#!/usr/bin/env bash
# Server CPU per GiB of 1 GiB GETs with curl: two Freight builds and nginx (sendfile), rounds interleaved, each
# round's order rotated. Usage: measure.sh BEFORE_CLI_DLL AFTER_CLI_DLL [ROUNDS] [GETS_PER_ROUND]
# CPU is utime+stime from /proc/PID/stat (10 ms ticks) over the round's GETs; speeds are curl's.
set -euo pipefail
before="$1"; after="$2"; rounds="${3:-6}"; gets="${4:-10}"
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
head -c 1073741824 /dev/urandom > "$work/big.bin"
mkdir -p "$work/ng/www" "$work/ng/logs" "$work/ng/tmp"; ln "$work/big.bin" "$work/ng/www/big.bin"
sed "s#NGINX_DIR#$work/ng#g" "$(dirname "$0")/nginx.conf" > "$work/ng/nginx.conf"
nginx -c "$work/ng/nginx.conf" -p "$work/ng" & ngpid=$!
dotnet "$before" serve --urls http://127.0.0.1:18090 --data-dir "$work/before" > "$work/before.log" 2>&1 & bpid=$!
dotnet "$after" serve --urls http://127.0.0.1:18091 --data-dir "$work/after" > "$work/after.log" 2>&1 & apid=$!
sleep 5
for port in 18090 18091; do curl -sf -T "$work/big.bin" "http://127.0.0.1:$port/files/big.bin" -o /dev/null; done
declare -A url=([before]=http://127.0.0.1:18090/files/big.bin [after]=http://127.0.0.1:18091/files/big.bin [nginx]=http://127.0.0.1:18081/big.bin)
declare -A pid=([before]=$bpid [after]=$apid [nginx]=$ngpid)
# Warm-up: 40 GETs each, past tiered compilation's 30-call threshold for the per-request methods.
for name in before after nginx; do for i in $(seq 40); do curl -sf "${url[$name]}" -o /dev/null; done; done
sync
names=(before after nginx)
for r in $(seq "$rounds"); do
  line="round $r (load $(cut -d' ' -f1 /proc/loadavg)):"
  for k in 0 1 2; do
    name=${names[$(( (k + r) % 3 ))]}
    a=$(awk '{print $14+$15}' /proc/${pid[$name]}/stat)
    speeds=0
    for i in $(seq "$gets"); do s=$(curl -sf "${url[$name]}" -o /dev/null -w '%{speed_download}'); speeds=$(echo "$speeds + $s" | bc); done
    b=$(awk '{print $14+$15}' /proc/${pid[$name]}/stat)
    line="$line $name $(echo "scale=3; ($b - $a) / 100 / $gets" | bc) s/GiB $(echo "$speeds / $gets / 1048576" | bc) MiB/s;"
  done
  echo "$line"
done
