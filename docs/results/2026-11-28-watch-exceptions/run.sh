#!/usr/bin/env bash
# watch-exceptions (docs/results/2026-11-28-watch-exceptions.md): two freight serve builds (A before, B after), copying path (FREIGHT_SendFile=false), wrk -t1 -c32 on a
# files-API GET of a 300 KB file; per round: server CPU µs/response, exceptions/response (the lab's runtime counter)
set -euo pipefail
# usage: run.sh A/Freight.Cli.dll B/Freight.Cli.dll [ROUNDS] [SECONDS]; needs wrk, curl, python3 and a 300 KB file f300k.bin here
A=$1; B=$2; rounds=${3:-6}; secs=${4:-5}
hz=$(getconf CLK_TCK)
start() { FREIGHT_SendFile=false dotnet "$1" serve --urls http://127.0.0.1:$2 --data-dir ./data-$2 > ./log-$2.txt 2>&1 & echo $!; }
pa=$(start $A 47801); pb=$(start $B 47802)
trap 'kill $pa $pb 2>/dev/null' EXIT
for p in 47801 47802; do for i in $(seq 100); do curl -fs -o /dev/null http://127.0.0.1:$p/lab/metrics/samples && break; sleep 0.2; done
  curl -fs -T f300k.bin http://127.0.0.1:$p/files/a/f300k.bin -o /dev/null -w "put $p %{http_code}\n"
  curl -fs http://127.0.0.1:$p/files/a/f300k.bin | cmp - f300k.bin && echo "bytes ok $p"
  wrk -t1 -c32 -d2s http://127.0.0.1:$p/files/a/f300k.bin > /dev/null; done
exc() { curl -fs http://127.0.0.1:$1/lab/metrics/samples | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d if isinstance(d,list) else d.get("samples",d); x=s[-1]; print(x["exceptionCount"], x["allocatedBytes"])'; }
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
echo "round,server,requests,cpu_us_per_response,exceptions_per_response,allocated_bytes_per_response,req_per_s"
for r in $(seq $rounds); do
  order="A B"; [ $((r % 2)) = 0 ] && order="B A"
  for s in $order; do
    if [ $s = A ]; then port=47801; pid=$pa; else port=47802; pid=$pb; fi
    read e0 a0 < <(exc $port); c0=$(cpu $pid)
    n=$(wrk -t1 -c32 -d${secs}s http://127.0.0.1:$port/files/a/f300k.bin | awk '/requests in/ {print $1}')
    c1=$(cpu $pid); sleep 1.2; read e1 a1 < <(exc $port)
    awk -v r=$r -v s=$s -v n=$n -v c=$((c1-c0)) -v e=$((e1-e0)) -v a=$((a1-a0)) -v hz=$hz -v d=$secs 'BEGIN{printf "%d,%s,%d,%.1f,%.3f,%.0f,%.0f\n", r,s,n,c*1e6/hz/n,e/n,a/n,n/d}'
  done
done
