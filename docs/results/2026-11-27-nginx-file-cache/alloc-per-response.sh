#!/usr/bin/env bash
# allocated bytes per response: PORT, URL path
port=$1; path=$2
wrk -t1 -c32 -d3s http://127.0.0.1:$port$path > /dev/null
for i in 1 2 3; do
a=$(curl -s http://127.0.0.1:$port/lab/metrics | python3 -c "import json,sys; print(json.load(sys.stdin)['allocatedBytes'])")
n=$(wrk -t1 -c32 -d3s http://127.0.0.1:$port$path | awk '/requests in/ {print $1}')
b=$(curl -s http://127.0.0.1:$port/lab/metrics | python3 -c "import json,sys; print(json.load(sys.stdin)['allocatedBytes'])")
python3 -c "print('bytes/response', round(($b-$a)/$n,1), 'requests', $n)"
done
