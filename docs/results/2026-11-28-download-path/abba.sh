#!/usr/bin/env bash
# Four bench runs in the order A B B A, each into OUT/NAME-i-{before,after}.{json,txt}.
# usage (from the repository's root): abba.sh BEFORE_DIR AFTER_DIR OUT NAME BENCH_ARGS...
#   transfer: abba.sh /tmp/before /tmp/after OUT transfer --suite transfer --runs 12
#   tls:      abba.sh /tmp/before /tmp/after OUT tls --suite transfer --filter "download/freight,nginx-tls" --full --runs 5
# then, on the after build alone: dotnet AFTER_DIR/Freight.Cli.dll bench --suite files --runs 30 --json OUT/files-30.json
# (each DIR a `dotnet build src/Freight.Cli -c Release -o DIR -p:RunAnalyzers=false` of its commit)
set -u
before=$1; after=$2; out=$3; name=$4; shift 4
i=0
for v in before after after before; do
  i=$((i+1))
  [ "$v" = before ] && dir=$before || dir=$after
  echo "== $i $v $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
  dotnet "$dir/Freight.Cli.dll" bench "$@" --json "$out/$name-$i-$v.json" > "$out/$name-$i-$v.txt" 2>&1
  echo "rc $?"
done
