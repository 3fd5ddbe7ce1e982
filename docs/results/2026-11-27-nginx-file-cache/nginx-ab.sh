#!/usr/bin/env bash
# nginx as the bench configured it before (47701, no open_file_cache) and after (47700), wrk -t1 -c32, 3 s rounds, interleaved
set -euo pipefail
PID=$(cat /tmp/ngx2/nginx.pid)
tick=$(getconf CLK_TCK)
echo "round,size,config,requests,req_per_s,server_cpu_us_per_response"
for r in 1 2 3 4; do
  for f in 4096 16384 131072 1048576; do
    for port in 47701 47700; do
      cfg=$([ $port = 47700 ] && echo open_file_cache || echo none)
      t0=$(awk '{print $14+$15}' /proc/$PID/stat)
      out=$(wrk -t1 -c32 -d3s http://127.0.0.1:$port/$f.bin)
      t1=$(awk '{print $14+$15}' /proc/$PID/stat)
      n=$(echo "$out" | awk '/requests in/ {print $1}')
      rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
      echo "$r,$f,$cfg,$n,$rps,$(python3 -c "print(round(($t1-$t0)*1e6/$tick/$n,1))")"
    done
  done
done
