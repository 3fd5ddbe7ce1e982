#!/usr/bin/env bash
# exceptions per request by route on freight serve (build $1), extra env in $2
# usage: audit.sh CLI.dll "ENV=V"; needs f.bin (300 KB) here, curl and python3
set -u
P=47851
env $2 dotnet $1 serve --urls http://127.0.0.1:$P --data-dir ./data > ./log.txt 2>&1 &
pid=$!
for i in $(seq 100); do curl -fs -o /dev/null http://127.0.0.1:$P/lab/metrics/samples && break; sleep 0.2; done
exc() { sleep 1.1; curl -fs http://127.0.0.1:$P/lab/metrics/samples | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["exceptionCount"])'; }
U=http://127.0.0.1:$P
curl -fs -T f.bin $U/files/a/f.bin -o /dev/null
etag=$(curl -sI $U/files/a/f.bin | awk -F': ' 'tolower($1)=="etag"{print $2}' | tr -d '\r')
run() { name=$1; shift; e0=$(exc); for i in $(seq 100); do "$@" > /dev/null 2>&1; done; e1=$(exc); echo "$name: $(( e1 - e0 )) exceptions / 100"; }
run "GET 300 KB" curl -s $U/files/a/f.bin
run "HEAD" curl -sI $U/files/a/f.bin
run "GET 304" curl -s -H "If-None-Match: $etag" $U/files/a/f.bin
run "GET range" curl -s -r 100-2000 $U/files/a/f.bin
run "GET 404" curl -s $U/files/a/none.bin
run "PUT replace" curl -s -T f.bin $U/files/a/f.bin
run "PUT 412" curl -s -T f.bin -H "If-None-Match: *" $U/files/a/f.bin
run "DELETE missing" curl -s -X DELETE $U/files/a/missing.bin
run "list" curl -s $U/files/a/
run "static lab 4k" curl -s $U/lab/static/freight/4096.bin
run "static lab 128k" curl -s $U/lab/static/freight/131072.bin
run "GET client abort" curl -s --max-time 0.001 $U/lab/download/freight?size=104857600
run "tus create+patch" bash -c "loc=\$(curl -s -D - -o /dev/null -X POST -H 'Tus-Resumable: 1.0.0' -H 'Upload-Length: 307200' $U/tus/ | awk -F': ' 'tolower(\$1)==\"location\"{print \$2}' | tr -d '\r'); curl -s -X PATCH -H 'Tus-Resumable: 1.0.0' -H 'Upload-Offset: 0' -H 'Content-Type: application/offset+octet-stream' --data-binary @f.bin $U\$loc"
kill $pid
