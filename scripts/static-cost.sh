#!/usr/bin/env bash
# Per-response cost of static files on the server side, Freight against nginx as the bench configures its peer:
# each server is one process on a loopback port, loaded by wrk (one thread, 32 keep-alive connections, as the static
# suite's wrk rows) for a fixed time per round, rounds interleaved across servers and sizes. For each round it reads
# the server's utime+stime from /proc/PID/stat before and after and divides by wrk's request count: server CPU µs
# per response. With --strace it adds, per server and size, `strace -c -f -p PID` over one run (syscalls per
# response by kind) and a trace of the sends and reads (bytes per call). The bodies are checked first (SHA-256 of
# one GET per size and server against the file). Results: docs/results/2026-11-25-small-files.md.
#
# usage: scripts/static-cost.sh [--rounds N] [--seconds S] [--sizes "4096 16384 …"] [--strace] [--out DIR] [--port P] SERVER...
#   --port P: the first of the loopback ports the servers listen on, one each (default 47601).
#   SERVER: nginx, or NAME=PATH/Freight.Cli.dll[,ENV=VALUE…] (e.g. after=artifacts/cli/Freight.Cli.dll,FREIGHT_SendFile=false)
set -euo pipefail

rounds=5
seconds=2
sizes="4096 16384 131072 1048576"
trace=0
out="${TMPDIR:-/tmp}/static-cost"
first_port=47600
servers=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --strace) trace=1; shift ;;
    --out) out="$2"; shift 2 ;;
    --port) first_port=$(($2 - 1)); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) servers+=("$1"); shift ;;
  esac
done
[ ${#servers[@]} -gt 0 ] || { echo "static-cost: name at least one server (nginx, or NAME=Freight.Cli.dll[,ENV=V…])" >&2; exit 2; }
command -v wrk >/dev/null || { echo "static-cost: wrk is missing (scripts/install-peers.sh)" >&2; exit 1; }
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
mkdir -p "$out"
tick="$(getconf CLK_TCK)"
port=$first_port
names=() pids=() urls=() children=()

cleanup() {
  for child in "${children[@]}"; do kill "$child" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

wait_for() { # URL: until it answers, at most 60 s
  for _ in $(seq 600); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "static-cost: $1 never answered" >&2; exit 1
}

static_dir=""
for spec in "${servers[@]}"; do
  port=$((port + 1))
  if [ "$spec" = nginx ]; then
    continue
  fi
  name="${spec%%=*}"
  rest="${spec#*=}"
  dll="${rest%%,*}"
  envs=()
  if [ "$rest" != "$dll" ]; then IFS=',' read -r -a envs <<< "${rest#*,}"; fi
  data="$out/data-$name"
  mkdir -p "$data"
  env "${envs[@]}" dotnet "$dll" serve --urls "http://127.0.0.1:$port" --data-dir "$data" > "$out/$name.log" 2>&1 &
  children+=($!)
  names+=("$name") pids+=($!) urls+=("http://127.0.0.1:$port/lab/static/freight")
  wait_for "http://127.0.0.1:$port/lab/static/freight/4096.bin"
  static_dir="${static_dir:-$data/lab/static}"
done

port=$first_port
for spec in "${servers[@]}"; do
  port=$((port + 1))
  [ "$spec" = nginx ] || continue
  [ -n "$static_dir" ] || { echo "static-cost: nginx serves a Freight server's lab files: name one" >&2; exit 2; }
  # The bench's peer configuration (src/Freight.Bench/Peers/Nginx.cs, BuildConfig), on the same files.
  work="$out/nginx"
  mkdir -p "$work"
  cat > "$work/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
error_log $work/error.log warn;
pid $work/nginx.pid;
lock_file $work/nginx.lock;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 75s;
    open_file_cache max=1000 inactive=5s;
    open_file_cache_valid 1s;
    default_type application/octet-stream;
    client_body_temp_path $work/client_body_temp;
    proxy_temp_path $work/proxy_temp;
    fastcgi_temp_path $work/fastcgi_temp;
    uwsgi_temp_path $work/uwsgi_temp;
    scgi_temp_path $work/scgi_temp;
    server {
        listen 127.0.0.1:$port;
        root $static_dir;
    }
}
EOF
  "$nginx_bin" -c "$work/nginx.conf" -p "$work" > "$work/stdout.log" 2>&1 &
  children+=($!)
  names+=(nginx) pids+=($!) urls+=("http://127.0.0.1:$port")
  wait_for "http://127.0.0.1:$port/4096.bin"
done

# Every server answers every size with the file's exact bytes.
for size in $sizes; do
  want="$(sha256sum < "$static_dir/$size.bin")"
  for i in "${!names[@]}"; do
    got="$(curl -fs "${urls[$i]}/$size.bin" | sha256sum)"
    [ "$got" = "$want" ] || { echo "static-cost: ${names[$i]} sent other bytes for $size.bin" >&2; exit 1; }
  done
done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

run_wrk() { # URL SECONDS → "requests bytes" (and fails on non-2xx or errors)
  local report
  report="$(wrk -t1 -c32 -d"$2"s "$1")"
  if grep -q -E "Non-2xx|Socket errors" <<< "$report"; then echo "static-cost: wrk: $report" >&2; exit 1; fi
  awk '/requests in/ { print $1 }' <<< "$report"
}

# Warm-up: tiered JIT and the file cache, every server and size once.
for size in $sizes; do
  for i in "${!names[@]}"; do run_wrk "${urls[$i]}/$size.bin" 1 > /dev/null; done
done

csv="$out/rounds.csv"
echo "round,size,server,requests,cpu_us_per_response,req_per_s,load1" > "$csv"
for round in $(seq "$rounds"); do
  for size in $sizes; do
    for i in "${!names[@]}"; do
      before="$(cpu_ticks "${pids[$i]}")"
      requests="$(run_wrk "${urls[$i]}/$size.bin" "$seconds")"
      after="$(cpu_ticks "${pids[$i]}")"
      load="$(cut -d' ' -f1 /proc/loadavg)"
      awk -v r="$round" -v s="$size" -v n="${names[$i]}" -v q="$requests" -v t=$((after - before)) -v hz="$tick" -v d="$seconds" -v l="$load" \
        'BEGIN { printf "%s,%s,%s,%d,%.1f,%.0f,%s\n", r, s, n, q, t * 1e6 / hz / q, q / d, l }' | tee -a "$csv"
    done
  done
done

# Medians and spread per size and server.
echo
echo "size      server             CPU µs/response median (min–max)   req/s median   rounds"
tail -n +2 "$csv" | sort -t, -k2,2n -k3,3 -k5,5n | awk -F, '
  function flush() { if (n) { printf "%-9s %-18s %8.1f (%.1f–%.1f)            %8.0f        %d\n", size, server, v[int((n + 1) / 2)], v[1], v[n], median_rps(), n } }
  function median_rps(  i, j, t, m) { for (i = 1; i <= n; i++) w[i] = q[i]; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (w[j] < w[i]) { t = w[i]; w[i] = w[j]; w[j] = t }; return w[int((n + 1) / 2)] }
  $2 != size || $3 != server { flush(); size = $2; server = $3; n = 0 }
  { n++; v[n] = $5; q[n] = $6 }
  END { flush() }' | tee "$out/summary.txt"

[ "$trace" = 1 ] || exit 0
command -v strace >/dev/null || { echo "static-cost: strace is missing" >&2; exit 1; }
echo
for size in $sizes; do
  for i in "${!names[@]}"; do
    name="${names[$i]}"
    # Syscalls by kind over one run (strace -c), divided by the run's responses.
    strace -c -f -q -p "${pids[$i]}" -o "$out/strace-c-$name-$size.txt" &
    tracer=$!
    sleep 1
    requests="$(run_wrk "${urls[$i]}/$size.bin" "$seconds")"
    kill -INT "$tracer"; wait "$tracer" || true
    echo "== $name, $size bytes: $requests responses under strace -c; calls per response (errors per response)"
    awk -v q="$requests" '$NF ~ /^[a-z_0-9]+$/ && $NF != "total" && $4 ~ /^[0-9]+$/ {
        errors = ($5 ~ /^[0-9]+$/) ? $5 : 0; printf "  %-16s %7.2f (%.2f)\n", $NF, $4 / q, errors / q }' "$out/strace-c-$name-$size.txt" | sort -k2,2nr | head -14
    # Bytes per send and per read: a shorter traced run of the calls that move a response's bytes.
    strace -f -q -e trace=sendmsg,sendto,write,writev,sendfile,pread64,read,recvfrom,recvmsg,openat,fstat,newfstatat,statx,flock,close,setsockopt -p "${pids[$i]}" -o "$out/strace-io-$name-$size.txt" &
    tracer=$!
    sleep 1
    run_wrk "${urls[$i]}/$size.bin" 1 > /dev/null
    kill -INT "$tracer"; wait "$tracer" || true
    awk '!/unfinished/ && match($0, /(sendmsg|sendto|writev|write|sendfile|pread64|read|recvfrom|recvmsg)(\(| resumed>)/) {
        call = substr($0, RSTART, RLENGTH); sub(/(\(| resumed>)$/, "", call); ret = $NF
        if ($0 ~ /EAGAIN/) { again[call]++ } else if (ret ~ /^[0-9]+$/) { n[call]++; bytes[call] += ret }
      }
      END { for (c in n) printf "  %-9s %7d calls, %9.0f bytes per call (%d EAGAIN)\n", c, n[c], bytes[c] / n[c], again[c] }' "$out/strace-io-$name-$size.txt"
  done
done
