#!/usr/bin/env bash
# exceptions and "client went away" lines over N complete GETs of a 300 KB file by clients that close at once
# usage: closers.sh CLI.dll PORT N; needs f.bin (300 KB) and rawget.py here, curl and python3
set -u
cli=$1; port=$2; n=$3
dotnet $cli serve --urls http://127.0.0.1:$port --data-dir ./d-$port > ./closers-$port.log 2>&1 &
pid=$!
for i in $(seq 100); do curl -fs -o /dev/null http://127.0.0.1:$port/lab/metrics/samples && break; sleep 0.2; done
U=http://127.0.0.1:$port
curl -fs -T f.bin $U/files/a/f.bin -o /dev/null
exc() { sleep 1.1; curl -fs $U/lab/metrics/samples | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["exceptionCount"])'; }
e0=$(exc)
python3 rawget.py $port /files/a/f.bin $n 307200
for i in $(seq $n); do curl -s -H "Connection: close" $U/files/a/f.bin -o /dev/null; done
e1=$(exc)
echo "$cli: $((e1 - e0)) exceptions over $((2 * n)) GETs; 'went away' lines: $(grep -c 'went away' ./closers-$port.log)"
kill $pid
