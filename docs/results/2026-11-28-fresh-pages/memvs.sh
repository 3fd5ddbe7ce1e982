#!/usr/bin/env bash
# 1 GiB PUTs to a server on PORT (nginx here: the bulk-blocks page's nginx.conf), alternating a sendfile client and one that
# sends the same bytes from memory (the bulk-blocks page's put.py with FROM_MEMORY=1); each upload read back and checked.   memvs.sh ROUNDS [PORT]  (PAYLOAD: the 1 GiB file)
n=$1; port=${2:-18104}
pid=$(ss -ltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
for ((r=1;r<=n;r++)); do
  for mode in sendfile memory; do
    sync
    if [ $mode = memory ]; then out=$(FROM_MEMORY=1 python3 "$(dirname "$0")/../2026-11-28-bulk-blocks/put.py" $port "${PAYLOAD:-payload.bin}" $pid); else out=$(python3 "$(dirname "$0")/../2026-11-28-bulk-blocks/put.py" $port "${PAYLOAD:-payload.bin}" $pid); fi
    curl -s -o /dev/null -X DELETE "http://127.0.0.1:$port/files/x.bin"
    echo "round $r $mode: $out"
  done
done
