#!/usr/bin/env bash
# Server CPU per GiB of sendfile GETs with curl, Freight (lab static path) vs nginx, 20 MiB files x50 and one 1 GiB file.
# usage: sizes-curl.sh FREIGHT_CLI_DLL [ROUNDS]   (from the repository's root; nginx at /usr/sbin/nginx)
set -euo pipefail
dll=$1; shift; d=${TMPDIR:-/tmp}/sz; tck=$(getconf CLK_TCK)
[ -f $d/1g.bin ] || head -c 1073741824 /dev/urandom > $d/1g.bin
[ -f $d/20m.bin ] || head -c 20971520 /dev/urandom > $d/20m.bin
mkdir -p $d/fd/lab/static $d/ng/www $d/ng/logs $d/ng/tmp
for f in 1g.bin 20m.bin; do ln -f $d/$f $d/fd/lab/static/$f; ln -f $d/$f $d/ng/www/$f; done
sed "s#NGINX_DIR#$d/ng#g" docs/results/2026-11-27-get-cost/nginx.conf > $d/ng/nginx.conf
/usr/sbin/nginx -c $d/ng/nginx.conf & ngpid=$!
dotnet "$dll" serve --urls http://127.0.0.1:18082 --data-dir $d/fd > $d/fr.log 2>&1 & frpid=$!
trap 'kill $ngpid $frpid 2>/dev/null' EXIT
sleep 5
url() { case $1 in fr) echo "http://127.0.0.1:18082/lab/static/freight/$2";; ng) echo "http://127.0.0.1:18081/$2";; esac; }
pidof_() { case $1 in fr) echo $frpid;; ng) echo $ngpid;; esac; }
gets() { local s=$1 f=$2 n=$3 u=(); for i in $(seq 1 $n); do u+=(-o /dev/null "$(url $s $f)"); done; curl -s -w '%{size_download}\n' "${u[@]}" | awk '{s+=$1} END {printf "%.0f", s}'; }
for s in fr ng; do gets $s 20m.bin 20 >/dev/null; gets $s 1g.bin 2 > /dev/null; done
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq 1 ${1:-6}); do
  order=(fr ng); [ $((r % 2)) -eq 0 ] && order=(ng fr)
  for f in 20m.bin:50 1g.bin:1; do
    file=${f%:*}; n=${f#*:}
    for s in "${order[@]}"; do
      p=$(pidof_ $s); b=$(cpu $p); t0=$(date +%s.%N); by=$(gets $s $file $n); t1=$(date +%s.%N); a=$(cpu $p)
      awk -v s=$s -v f=$file -v r=$r -v d=$((a-b)) -v tck=$tck -v by=$by -v w=$(echo "$t1-$t0"|bc -l) 'BEGIN{printf "%s %s round %d: %.3f s/GiB  %.0f MiB/s\n", s, f, r, d/tck/(by/1073741824), by/1048576/w}'
    done
  done
done
