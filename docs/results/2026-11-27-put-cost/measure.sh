#!/bin/bash
# usage: measure.sh LABEL PID URLBASE  -> prints label code cpu_s user_s sys_s wall_s
label=$1; pid=$2; url=$3
name=f$RANDOM$RANDOM
sync; sleep 1
read -r au as < <(awk '{print $14, $15}' /proc/$pid/stat); t0=$(date +%s.%N)
code=$(curl -s -o /dev/null -w "%{http_code}" -T /tmp/pc/body.bin $url/$name)
t1=$(date +%s.%N); sleep 0.3
read -r bu bs < <(awk '{print $14, $15}' /proc/$pid/stat)
printf "%s %s cpu_s=%.2f user_s=%.2f sys_s=%.2f wall_s=%.2f load=%s\n" $label $code $(echo "($bu+$bs-$au-$as)/100" | bc -l) $(echo "($bu-$au)/100" | bc -l) $(echo "($bs-$as)/100" | bc -l) $(echo "$t1-$t0" | bc -l) $(cut -d' ' -f1 /proc/loadavg)
