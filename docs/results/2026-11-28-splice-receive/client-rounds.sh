#!/usr/bin/env bash
# Rounds of 1 GiB PUTs by a sendfile client (put.py) against side-by-side servers, order rotated each round; each
# upload is deleted and synced before the next, so no writeback from an earlier one lands in a later one.
#   client-rounds.sh ROUNDS NAME=PORT...   (the server's PID is found by its port)
# PUT_PY names another client with put.py's arguments (the bulk-blocks page's reads each upload back and checks it).
set -euo pipefail
rounds=$1; shift; servers=("$@"); n=${#servers[@]}
here=$(dirname "$0")
for ((r = 1; r <= rounds; r++)); do
  for ((i = 0; i < n; i++)); do
    s=${servers[$(( (i + r) % n ))]}; name=${s%%=*}; port=${s#*=}
    pid=$(ss -ltnp "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
    sync
    echo "round $r $name $(python3 "${PUT_PY:-$here/put.py}" "$port" "${PAYLOAD:-payload.bin}" "$pid")"
    curl -s -o /dev/null -X DELETE "http://127.0.0.1:$port/files/x.bin"
  done
done
