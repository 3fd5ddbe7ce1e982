#!/usr/bin/env bash
# Invocations of the files suite's four PUT rows, alternating the VM's free-page-reporting threshold: W (1024 MiB, the VM's own)
# and R (65536 MiB). Needs root; the value is put back on exit.   ab.sh CLI.dll OUTDIR W R R W W R
set -u
P=/sys/module/page_reporting/parameters/max_waiting_mib
orig=$(cat $P); trap 'echo $orig > $P' EXIT
cli=$1; out=$2; shift 2; i=0
for mode in "$@"; do
  i=$((i+1))
  if [ $mode = R ]; then echo 65536 > $P; else echo 1024 > $P; fi
  echo "== i$i-$mode max_waiting_mib=$(cat $P) $(date -u +%T)"
  dotnet "$cli" bench --suite files --filter files/put,peer/nginx-put,files/put-sendfile,peer/nginx-put-sendfile --size 1073741824 --runs 10 --max-seconds 0 --json $out/i$i-$mode.json > $out/i$i-$mode.txt 2>&1
  echo "   exit $? $(date -u +%T)"
done
