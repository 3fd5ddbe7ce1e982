#!/usr/bin/env bash
# win2.sh PORT BUF LABEL: 3 x 1 GiB reads; the sender's snd_wnd (the reader's advertised window) sampled every 20 ms: median and count
port=$1; buf=$2; label=$3
python3 rd.py $port $buf 3 > out-win.txt & cp=$!
: > wnd.txt
while kill -0 $cp 2>/dev/null; do ss -tiH "sport = :$port" | tr ' ' '\n' | grep -E "^snd_wnd:" | cut -d: -f2 >> wnd.txt; sleep 0.02; done
read -r by sec < out-win.txt
sort -n wnd.txt | awk -v l="$label" -v b=$by -v s=$sec '{a[NR]=$1} END{printf "%s: %.0f MiB/s, peer window median %d B (p10 %d, p90 %d, %d samples)\n", l, b/1048576/s, a[int(NR/2)+1], a[int(NR*0.1)+1], a[int(NR*0.9)+1], NR}'
