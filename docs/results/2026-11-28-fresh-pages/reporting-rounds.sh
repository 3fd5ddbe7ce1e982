#!/usr/bin/env bash
# Rounds of 1 GiB sendfile-client PUTs to nginx on 18104, with how much memory the VM reported free to its host meanwhile
# (/sys/module/page_reporting/parameters/reported_kib).   reporting-rounds.sh ROUNDS   (PAYLOAD: the 1 GiB file)
port=18104; n=$1; P=/sys/module/page_reporting/parameters
pid=$(ss -ltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
for ((r=1;r<=n;r++)); do
  sync; sleep ${PAUSE:-0}
  b=$(cat $P/reported_kib)
  out=$(python3 "$(dirname "$0")/../2026-11-28-bulk-blocks/put.py" $port "${PAYLOAD:-payload.bin}" $pid)
  a=$(cat $P/reported_kib)
  curl -s -o /dev/null -X DELETE "http://127.0.0.1:$port/files/x.bin"
  echo "round $r: $out  reported during PUT+readback: $(( (a-b)/1024 )) MiB, free $(awk '/MemFree/{print int($2/1024)}' /proc/meminfo) MiB"
done
