#!/bin/bash
# One session of A/A runs for freight compare's single-run floors (docs/load.md, Comparing runs): a fresh serve, then
# eight runs each of three commands, interleaved. Run from the repository's root after ./freight builds the CLI;
# the results land in OUT (default ./aa-session).
set -u
OUT=${OUT:-aa-session}; PORT=${PORT:-46511}
D=$OUT/data; rm -rf "$D"; mkdir -p "$D/files"
head -c 4096 /dev/urandom > "$D/files/4k.bin"
head -c 25000000 /dev/urandom > "$D/files/25m.bin"
./freight serve --urls http://127.0.0.1:$PORT --data-dir "$D" --Freight:Files:Directory "$D/files" > "$OUT/serve.log" 2>&1 &
P=$!
sleep 4
U=http://127.0.0.1:$PORT/files
for i in 1 2 3 4 5 6 7 8; do
  for spec in "list / -c 8" "small /4k.bin -c 8" "big /25m.bin -c 2"; do
    set -- $spec; name=$1; path=$2; shift 2
    echo "== $name$i $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
    ./freight load $U$path "$@" -d 10 --server-pid $P --no-progress --json "$OUT/$name$i.json" > "$OUT/$name$i.txt" 2>&1 || echo "rc=$?"
  done
done
kill $P; wait
