#!/bin/bash
# curlput.sh LABEL PID URLBASE
pid=$2; name=c$RANDOM$RANDOM
a=$(awk '{print $14+$15}' /proc/$pid/stat); t0=$(date +%s.%N)
curl -s -o /dev/null -T /tmp/pc/body.bin $3/$name; t1=$(date +%s.%N); sleep 0.3
b=$(awk '{print $14+$15}' /proc/$pid/stat)
curl -s -o /dev/null -X DELETE $3/$name
echo "$1 curl cpu_s=$(echo "($b-$a)/100" | bc -l | cut -c1-4) MiB/s=$(echo "1024/($t1-$t0)" | bc -l | cut -d. -f1)"
sleep 0.5
