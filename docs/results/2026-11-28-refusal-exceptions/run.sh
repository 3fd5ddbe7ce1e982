#!/usr/bin/env bash
# GET 404 on the files API under wrk: server CPU per 1,000 requests and req/s, builds A and B interleaved.
# usage: run.sh A.dll B.dll ROUNDS "EXTRA SERVE ARGS"
set -u
A=$1; B=$2; R=$3; X=${4:-}
P=47861
one() {
  dll=$1; rm -rf /tmp/ab404/data
  dotnet $dll serve --urls http://127.0.0.1:$P --data-dir /tmp/ab404/data $X > /tmp/ab404/log.txt 2>&1 &
  pid=$!
  for i in $(seq 100); do curl -fs -o /dev/null http://127.0.0.1:$P/lab/ping && break; sleep 0.2; done
  wrk -t1 -c8 -d2s http://127.0.0.1:$P/files/a/none.bin > /dev/null 2>&1   # warm-up
  t0=$(awk '{print $14+$15}' /proc/$pid/stat)
  out=$(wrk -t1 -c8 -d8s http://127.0.0.1:$P/files/a/none.bin)
  t1=$(awk '{print $14+$15}' /proc/$pid/stat)
  reqs=$(echo "$out" | awk '/requests in/{print $1}')
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/{print $5}')
  kill $pid; wait $pid 2>/dev/null
  echo "$(basename $(dirname $dll)) rps=$rps reqs=$reqs non2xx=$non2xx cpu_ms_per_1k=$(python3 -c "print(round(($t1-$t0)*10/($reqs/1000),1))")"
}
for r in $(seq $R); do
  if (( r % 2 )); then one $A; one $B; else one $B; one $A; fi
done
