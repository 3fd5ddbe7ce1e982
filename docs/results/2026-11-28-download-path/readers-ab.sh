#!/usr/bin/env bash
# Server CPU per GiB of sendfile GETs by reader.cs (an HttpClient reading with a 1 MiB, then a 64 KiB buffer): two
# freight builds (B with BENV in its environment) and nginx, order alternating each round.
# usage: [BENV=VAR=VALUE] readers-ab.sh A_DLL B_DLL READER_DLL ROUNDS FILE(1g.bin|20m.bin) GETS   (from the repository's root,
# after sizes-curl.sh has made the files; READER_DLL: reader.cs copied out of the repository (away from
# its Directory.Build.props), then `dotnet build reader.cs -o DIR`)
set -euo pipefail
A=$1; B=$2; BENV=${BENV:-X=1}; cli=$3; rounds=$4; file=$5; gets=$6; d=${TMPDIR:-/tmp}/sz; tck=$(getconf CLK_TCK)
len=$(stat -c %s $d/$file)
mkdir -p $d/fa/lab/static $d/fb/lab/static; ln -f $d/$file $d/fa/lab/static/$file; ln -f $d/$file $d/fb/lab/static/$file; ln -f $d/$file $d/ng/www/$file
sed "s#NGINX_DIR#$d/ng#g" docs/results/2026-11-27-get-cost/nginx.conf > $d/ng/nginx.conf
/usr/sbin/nginx -c $d/ng/nginx.conf & ngpid=$!
dotnet "$A" serve --urls http://127.0.0.1:18084 --data-dir $d/fa > $d/fa.log 2>&1 & apid=$!
env $BENV dotnet "$B" serve --urls http://127.0.0.1:18085 --data-dir $d/fb > $d/fb.log 2>&1 & bpid=$!
trap 'kill $ngpid $apid $bpid 2>/dev/null' EXIT
sleep 5
url() { case $1 in A) echo "http://127.0.0.1:18084/lab/static/freight/$file";; B) echo "http://127.0.0.1:18085/lab/static/freight/$file";; ng) echo "http://127.0.0.1:18081/$file";; esac; }
pid_() { case $1 in A) echo $apid;; B) echo $bpid;; ng) echo $ngpid;; esac; }
for s in A B ng; do dotnet "$cli" "$(url $s)" 3 1048576 $len > /dev/null; done
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
for r in $(seq 1 $rounds); do
  order=(A B ng); [ $((r % 2)) -eq 0 ] && order=(ng B A)
  for buf in 1048576 65536; do
    for s in "${order[@]}"; do
      p=$(pid_ $s); b=$(cpu $p); read -r by sec < <(dotnet "$cli" "$(url $s)" $gets $buf $len); a=$(cpu $p)
      awk -v s=$s -v buf=$buf -v r=$r -v d=$((a-b)) -v tck=$tck -v by=$by -v w=$sec 'BEGIN{printf "%-2s buf %7d round %d: %.3f s/GiB  %.0f MiB/s\n", s, buf, r, d/tck/(by/1073741824), by/1048576/w}'
    done
  done
done
