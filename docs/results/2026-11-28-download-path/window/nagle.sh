#!/bin/bash
# usage: nagle.sh FILE [ROUNDS]: srv.py plain, cork and nagle side by side; rd.py with 1 MiB and 64 KiB reads
# rounds of: for each server (plain cork nagle) and reader (1 MiB, 64 KiB): 2 GETs of 1 GiB; MiB/s and server CPU s/GiB
F=$1; R=${2:-4}
hz=$(getconf CLK_TCK)
python3 srv.py 48001 $F plain & P1=$!
python3 srv.py 48002 $F cork & P2=$!
python3 srv.py 48003 $F nagle & P3=$!
sleep 1
cpu(){ awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq $R); do
 for buf in 1048576 65536; do
  for s in 1 2 3; do
   port=$((48000+s)); eval pid=\$P$s
   c0=$(cpu $pid); out=$(python3 rd.py $port $buf 2); c1=$(cpu $pid)
   set -- $out
   awk -v r=$r -v b=$buf -v s=$s -v t=$1 -v d=$2 -v c=$((c1-c0)) -v hz=$hz 'BEGIN{n=(s==1?"plain":(s==2?"cork":"nagle")); printf "%d %7d %-6s %6.0f MiB/s %.3f s/GiB\n", r,b,n,t/d/1048576, c/hz/(t/1073741824)}'
  done
 done
done
kill $P1 $P2 $P3
