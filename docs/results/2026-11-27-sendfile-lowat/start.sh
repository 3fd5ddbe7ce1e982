#!/usr/bin/env bash
# One freight serve per watermark (the experiment build reads FREIGHT_EXP_LOWAT once; never committed), plus nginx.
set -euo pipefail
src=${SRC:-/tmp/lowat-m/data-after/lab/static/1g.bin}   # 1 GiB of random bytes, hard-linked into each data dir
start() { name=$1; lowat=$2; port=$3
  mkdir -p /tmp/lowat2-m/data-$name/lab/static
  ln -f "$src" /tmp/lowat2-m/data-$name/lab/static/1g.bin
  FREIGHT_EXP_LOWAT=$lowat nohup dotnet /tmp/lowat2-bin/Freight.Cli.dll serve --urls http://127.0.0.1:$port \
    --data-dir /tmp/lowat2-m/data-$name > /tmp/lowat2-m/$name.log 2>&1 &
  echo $! > /tmp/lowat2-m/$name.pid; }
start k128 131072 47721
start k512 524288 47722
start k1m 1048576 47723
start k2m 2097152 47724
# nginx as the bench's peer runs it: one process, no master, sendfile on, no access log.
mkdir -p /tmp/lowat2-m/nginx/root /tmp/lowat2-m/nginx/tmp
ln -f "$src" /tmp/lowat2-m/nginx/root/1g.bin
cat > /tmp/lowat2-m/nginx/nginx.conf <<CONF
daemon off; master_process off; worker_processes 1; pid /tmp/lowat2-m/nginx/nginx.pid;
error_log /tmp/lowat2-m/nginx/error.log;
events { worker_connections 1024; }
http { access_log off; sendfile on; keepalive_timeout 300s; keepalive_requests 100000;
  client_body_temp_path /tmp/lowat2-m/nginx/tmp; proxy_temp_path /tmp/lowat2-m/nginx/tmp;
  fastcgi_temp_path /tmp/lowat2-m/nginx/tmp; uwsgi_temp_path /tmp/lowat2-m/nginx/tmp; scgi_temp_path /tmp/lowat2-m/nginx/tmp;
  server { listen 127.0.0.1:47725; root /tmp/lowat2-m/nginx/root; } }
CONF
nohup nginx -c /tmp/lowat2-m/nginx/nginx.conf > /tmp/lowat2-m/nginx.log 2>&1 &
echo $! > /tmp/lowat2-m/nginx.pid
