#!/usr/bin/env bash
# usage: seg-curl.sh PID PORT URL 0 LABEL: as seg.sh, with four 1 GiB GETs by curl on one connection
pid=$1; port=$2; url=$3; buf=$4; label=$5; tck=$(getconf CLK_TCK)
b=$(awk '{print $14+$15}' /proc/$pid/stat)
( t0=$(date +%s.%N); n=$(curl -s -w "%{size_download}\n" -o /dev/null $url -o /dev/null $url -o /dev/null $url -o /dev/null $url | awk "{s+=\$1} END {printf \"%.0f\", s}"); t1=$(date +%s.%N); echo "$n $(echo "$t1-$t0" | bc -l)" > ${TMPDIR:-/tmp}/seg-run.txt ) & cp=$!
sleep 1.0; s1=$(ss -tiH "sport = :$port" | tr ' ' '\n' | grep -E "^(bytes_sent|data_segs_out):" | cut -d: -f2 | tr '\n' ' ')
sleep 1.0; s2=$(ss -tiH "sport = :$port" | tr ' ' '\n' | grep -E "^(bytes_sent|data_segs_out):" | cut -d: -f2 | tr '\n' ' ')
wait $cp; a=$(awk '{print $14+$15}' /proc/$pid/stat); read -r by sec < ${TMPDIR:-/tmp}/seg-run.txt
set -- $s1 $s2
awk -v l="$label" -v d=$((a-b)) -v tck=$tck -v by=$by -v w=$sec -v b1=$1 -v g1=$2 -v b2=$3 -v g2=$4 'BEGIN{printf "%s: %.3f s/GiB  %.0f MiB/s  %.0f B/segment\n", l, d/tck/(by/1073741824), by/1048576/w, (b2-b1)/(g2-g1)}'
