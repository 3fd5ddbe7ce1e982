#!/usr/bin/env bash
# usage: READER_DLL=DIR/reader.dll seg.sh PID PORT URL BUF LABEL: six 1 GiB GETs by reader.cs with a BUF-byte buffer; the
# server's CPU s/GiB, MiB/s, and the bytes per data segment between two `ss -ti` samples of the connection 1 s apart
pid=$1; port=$2; url=$3; buf=$4; label=$5; tck=$(getconf CLK_TCK)
b=$(awk '{print $14+$15}' /proc/$pid/stat)
dotnet "$READER_DLL" $url 6 $buf 1073741824 > ${TMPDIR:-/tmp}/seg-run.txt & cp=$!
sleep 1.0; s1=$(ss -tiH "sport = :$port" | tr ' ' '\n' | grep -E "^(bytes_sent|data_segs_out):" | cut -d: -f2 | tr '\n' ' ')
sleep 1.0; s2=$(ss -tiH "sport = :$port" | tr ' ' '\n' | grep -E "^(bytes_sent|data_segs_out):" | cut -d: -f2 | tr '\n' ' ')
wait $cp; a=$(awk '{print $14+$15}' /proc/$pid/stat); read -r by sec < ${TMPDIR:-/tmp}/seg-run.txt
set -- $s1 $s2
awk -v l="$label" -v d=$((a-b)) -v tck=$tck -v by=$by -v w=$sec -v b1=$1 -v g1=$2 -v b2=$3 -v g2=$4 'BEGIN{printf "%s: %.3f s/GiB  %.0f MiB/s  %.0f B/segment\n", l, d/tck/(by/1073741824), by/1048576/w, (b2-b1)/(g2-g1)}'
