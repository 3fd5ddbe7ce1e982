#!/bin/bash
# usage: ab.sh N label=port ... ; order rotates each round; each stored file is deleted right after its PUT,
# so every PUT writes into page-cache pages the previous one freed (the same conditions for every server).
n=$1; shift; specs=("$@"); k=${#specs[@]}
for i in $(seq 0 $((n-1))); do
  for j in $(seq 0 $((k-1))); do
    spec=${specs[$(( (i+j) % k ))]}
    label=${spec%=*}; port=${spec#*=}
    pid=$(ss -ltnpH "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
    if [ $port = 18099 ]; then url=http://127.0.0.1:$port/dav; else url=http://127.0.0.1:$port/files; fi
    /tmp/pc/measure.sh $label $pid $url
    find /tmp/pc/ng/put /tmp/pc/fd/files -type f -delete; find /tmp/pc/d_* -path '*/files/*' -type f -delete 2>/dev/null
  done
done
