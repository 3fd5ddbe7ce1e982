#!/usr/bin/env bash
# Rounds of 1 GiB sendfile-client PUTs to nginx on 18104, each under `perf record -g` of nginx (perf/rN.data).
#   perf-rounds.sh ROUNDS   (PAYLOAD: the 1 GiB file)
port=18104; n=$1; mkdir -p perf
pid=$(ss -ltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
for ((r=1;r<=n;r++)); do
  sync
  perf record -q -e cpu-clock -F 1999 -g -p $pid -o perf/r$r.data 2>/dev/null &
  pp=$!; sleep 0.3
  out=$(python3 "$(dirname "$0")/../2026-11-28-bulk-blocks/put.py" $port "${PAYLOAD:-payload.bin}" $pid)
  kill -INT $pp; wait $pp 2>/dev/null
  echo "round $r: $out"
  curl -s -o /dev/null -X DELETE "http://127.0.0.1:$port/files/x.bin"
done
