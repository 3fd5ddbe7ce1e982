#!/usr/bin/env bash
# Server CPU per GiB of sendfile GETs by reader.cs (an HttpClient reading with a 1 MiB, then a 64 KiB buffer): two
# freight builds (B with BENV in its environment) and nginx, order alternating each round. With CENV, a third server C
# (B's build, CENV in its environment) and four orders in turn; with CURL=1, curl after the two readers.
# usage: [BENV=VAR=VALUE] [CENV=VAR=VALUE] [CURL=1] readers-ab.sh A_DLL B_DLL READER_DLL ROUNDS FILE(1g.bin|20m.bin) GETS   (from the repository's root,
# after sizes-curl.sh has made the files; READER_DLL: reader.cs copied out of the repository (away from
# its Directory.Build.props), then `dotnet build reader.cs -o DIR`)
set -euo pipefail
A=$1; B=$2; BENV=${BENV:-X=1}; cli=$3; rounds=$4; file=$5; gets=$6; d=${TMPDIR:-/tmp}/sz; tck=$(getconf CLK_TCK)
len=$(stat -c %s $d/$file)
mkdir -p $d/fa/lab/static $d/fb/lab/static $d/fc/lab/static; for x in fa fb fc; do ln -f $d/$file $d/$x/lab/static/$file; done; ln -f $d/$file $d/ng/www/$file
sed "s#NGINX_DIR#$d/ng#g" docs/results/2026-11-27-get-cost/nginx.conf > $d/ng/nginx.conf
/usr/sbin/nginx -c $d/ng/nginx.conf & ngpid=$!
dotnet "$A" serve --urls http://127.0.0.1:18084 --data-dir $d/fa > $d/fa.log 2>&1 & apid=$!
env $BENV dotnet "$B" serve --urls http://127.0.0.1:18085 --data-dir $d/fb > $d/fb.log 2>&1 & bpid=$!
servers=(A B ng); cpid=
if [ -n "${CENV:-}" ]; then env $CENV dotnet "$B" serve --urls http://127.0.0.1:18086 --data-dir $d/fc > $d/fc.log 2>&1 & cpid=$!; servers=(A B C ng); fi
trap 'kill $ngpid $apid $bpid $cpid 2>/dev/null' EXIT
sleep 5
url() { case $1 in A) echo "http://127.0.0.1:18084/lab/static/freight/$file";; B) echo "http://127.0.0.1:18085/lab/static/freight/$file";; C) echo "http://127.0.0.1:18086/lab/static/freight/$file";; ng) echo "http://127.0.0.1:18081/$file";; esac; }
pid_() { case $1 in A) echo $apid;; B) echo $bpid;; C) echo $cpid;; ng) echo $ngpid;; esac; }
for s in "${servers[@]}"; do dotnet "$cli" "$(url $s)" 3 1048576 $len > /dev/null; done
curlget() { local u=(); for i in $(seq 1 $2); do u+=(-o /dev/null "$1"); done; local t0 t1 n; t0=$(date +%s.%N); n=$(curl -s -w '%{size_download}\n' "${u[@]}" | awk '{s+=$1} END {printf "%.0f", s}'); t1=$(date +%s.%N); echo "$n $(echo "$t1-$t0" | bc -l)"; }
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq 1 $rounds); do
  if [ -n "$cpid" ]; then
    case $((r % 4)) in 1) order=(A B C ng);; 2) order=(ng C B A);; 3) order=(B ng A C);; 0) order=(C A ng B);; esac
  else
    order=(A B ng); [ $((r % 2)) -eq 0 ] && order=(ng B A)
  fi
  for buf in 1048576 65536 ${CURL:+curl}; do
    for s in "${order[@]}"; do
      p=$(pid_ $s); b=$(cpu $p); if [ $buf = curl ]; then read -r by sec < <(curlget "$(url $s)" $gets); else read -r by sec < <(dotnet "$cli" "$(url $s)" $gets $buf $len); fi; a=$(cpu $p)
      awk -v s=$s -v buf=$buf -v r=$r -v d=$((a-b)) -v tck=$tck -v by=$by -v w=$sec 'BEGIN{printf "%-2s buf %7s round %d: %.3f s/GiB  %.0f MiB/s\n", s, buf, r, d/tck/(by/1073741824), by/1048576/w}'
    done
  done
done
