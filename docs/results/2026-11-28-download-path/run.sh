#!/usr/bin/env bash
set -u
cd /work/main
i=0
for v in before after after before; do
  i=$((i+1))
  echo "== $i $v $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
  dotnet /tmp/$v/Freight.Cli.dll bench --suite transfer --runs 12 --json OUT/transfer-$i-$v.json > OUT/transfer-$i-$v.txt 2>&1
  echo "rc $?"
done
echo "== files $(date -u +%H:%M:%S)"
dotnet /tmp/after/Freight.Cli.dll bench --suite files --runs 30 --json OUT/files-30.json > OUT/files-30.txt 2>&1
echo "rc $? $(date -u +%H:%M:%S)"
