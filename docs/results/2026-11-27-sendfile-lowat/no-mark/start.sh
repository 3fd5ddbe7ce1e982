#!/usr/bin/env bash
# The no-mark run of 2026-11-27-sendfile-lowat.md: two freight serve processes of one build with experiment-no-lowat.diff (1 MiB mark, no
# mark) and nginx, on one 1 GiB file. The rounds are this page's ../measure.sh with its servers renamed:
#   sed -e 's#/tmp/lowat2-m#/tmp/lw#g' -e 's/names=(k128 k512 k1m k2m nginx)/names=(k1m k0 nginx)/' \
#     -e 's/declare -A port=.*/declare -A port=( [k1m]=47723 [k0]=47724 [nginx]=47725 )/' \
#     -e 's#declare -A path=.*#declare -A path=( [k1m]=/lab/static/freight/1g.bin [k0]=/lab/static/freight/1g.bin [nginx]=/1g.bin )#' \
#     ../measure.sh > measure.sh && ./measure.sh 8 3
set -euo pipefail
src=/tmp/lw/1g.bin
start() { name=$1; lowat=$2; port=$3
  mkdir -p /tmp/lw/data-$name/lab/static
  ln -f "$src" /tmp/lw/data-$name/lab/static/1g.bin
  FREIGHT_EXP_LOWAT=$lowat nohup dotnet /tmp/lowat-exp-bin/Freight.Cli.dll serve --urls http://127.0.0.1:$port \
    --data-dir /tmp/lw/data-$name > /tmp/lw/$name.log 2>&1 &
  echo $! > /tmp/lw/$name.pid; }
start k1m 1048576 47723
start k0 0 47724
mkdir -p /tmp/lw/nginx/root /tmp/lw/nginx/tmp
ln -f "$src" /tmp/lw/nginx/root/1g.bin
cat > /tmp/lw/nginx/nginx.conf <<CONF
daemon off; master_process off; worker_processes 1; pid /tmp/lw/nginx/nginx.pid;
error_log /tmp/lw/nginx/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; keepalive_timeout 300s; keepalive_requests 100000;
  client_body_temp_path /tmp/lw/nginx/tmp; proxy_temp_path /tmp/lw/nginx/tmp;
  fastcgi_temp_path /tmp/lw/nginx/tmp; uwsgi_temp_path /tmp/lw/nginx/tmp; scgi_temp_path /tmp/lw/nginx/tmp;
  server { listen 127.0.0.1:47725; root /tmp/lw/nginx/root; } }
CONF
nohup nginx -c /tmp/lw/nginx/nginx.conf > /tmp/lw/nginx.log 2>&1 &
echo $! > /tmp/lw/nginx.pid
