#!/usr/bin/env bash
# One 1 GiB PUT with curl -T against freight serve under strace -c -f. $1: 1 turns the prototype's SO_RCVLOWAT on; BLOCK: transport block bytes; CLI: the prototype build; /tmp/put1g.bin: 1 GiB of random bytes.
# $1 = 0|1 for FREIGHT_RCVLOWAT
set -u
rm -rf /tmp/lw-data; mkdir -p /tmp/lw-data
FREIGHT_RCVLOWAT=$1 dotnet ${CLI:?the prototype build (rcvlowat.patch), Freight.Cli.dll} serve --urls http://127.0.0.1:5391 --data-dir /tmp/lw-data --Freight:TransportBlockBytes ${BLOCK:-65536} > /tmp/lw-serve.log 2>&1 &
pid=$!
for i in $(seq 50); do grep -q listening /tmp/lw-serve.log && break; sleep 0.2; done
curl -s -o /dev/null -T /tmp/put1g.bin http://127.0.0.1:5391/files/warm.bin
strace -f -c -p $pid -o /tmp/lw-strace-$1.txt &
sp=$!; sleep 4
t0=$(date +%s.%N); c0=$(awk '{print $14+$15}' /proc/$pid/stat)
curl -s -w "%{http_code} %{speed_upload}\n" -o /dev/null -T /tmp/put1g.bin http://127.0.0.1:5391/files/a.bin
c1=$(awk '{print $14+$15}' /proc/$pid/stat); t1=$(date +%s.%N)
kill -INT $sp; wait $sp 2>/dev/null
echo "cpu ticks $((c1-c0))"
curl -s -I http://127.0.0.1:5391/files/a.bin | grep -i "etag\|content-length"
kill $pid; wait $pid 2>/dev/null
head -20 /tmp/lw-strace-$1.txt
