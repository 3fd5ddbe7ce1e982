#!/usr/bin/env bash
# HTTPS 1 GiB downloads with curl: Kestrel's TLS output path (A) against records sent on the socket (B), rounds alternating.
set -euo pipefail
cli="$1"; rounds="${2:-6}"; gets="${3:-3}"
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
dotnet "$cli" serve --urls https://127.0.0.1:18444 --data-dir "$work/a" --Freight:Tls:SendRecordsOnSocket false > "$work/a.log" 2>&1 & apid=$!
dotnet "$cli" serve --urls https://127.0.0.1:18445 --data-dir "$work/b" --Freight:Tls:SendRecordsOnSocket true > "$work/b.log" 2>&1 & bpid=$!
sleep 6
declare -A url=([A]="https://127.0.0.1:18444/lab/download/freight?size=1073741824" [B]="https://127.0.0.1:18445/lab/download/freight?size=1073741824")
declare -A pid=([A]=$apid [B]=$bpid)
for n in A B; do for i in $(seq 8); do curl -sk --http1.1 "${url[$n]}" -o /dev/null; done; done
for r in $(seq "$rounds"); do
  line="round $r (load $(cut -d' ' -f1 /proc/loadavg)):"
  if (( r % 2 )); then order="A B"; else order="B A"; fi
  for n in $order; do
    a=$(awk '{print $14+$15}' /proc/${pid[$n]}/stat); speeds=0
    for i in $(seq "$gets"); do
      out=$(curl -sk --http1.1 "${url[$n]}" -o /dev/null -w '%{size_download} %{speed_download}')
      [ "${out% *}" = 1073741824 ] || { echo "short download: $out"; exit 1; }
      speeds=$(echo "$speeds + ${out#* }" | bc)
    done
    b=$(awk '{print $14+$15}' /proc/${pid[$n]}/stat)
    line="$line $n $(echo "scale=3; ($b - $a) / 100 / $gets" | bc) s/GiB $(echo "$speeds / $gets / 1048576" | bc) MiB/s;"
  done
  echo "$line"
done
