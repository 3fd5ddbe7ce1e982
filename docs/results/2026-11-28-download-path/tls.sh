#!/usr/bin/env bash
set -u
cd /work/main
i=0
for v in before after after before; do
  i=$((i+1))
  echo "== $i $v $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
  dotnet /tmp/$v/Freight.Cli.dll bench --suite transfer --filter "download/freight,nginx-tls" --full --runs 5 --json OUT/tls-$i-$v.json > OUT/tls-$i-$v.txt 2>&1
  echo "rc $?"
done
echo "done $(date -u +%H:%M:%S)"
