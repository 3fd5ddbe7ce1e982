#!/usr/bin/env bash
set -euo pipefail
start() { name=$1; bin=$2; port=$3; shift 3
  mkdir -p /tmp/lowat-m/data-$name/lab/static
  nohup dotnet /tmp/lowat-bin/$bin/Freight.Cli.dll serve --urls http://127.0.0.1:$port --data-dir /tmp/lowat-m/data-$name "$@" > /tmp/lowat-m/$name.log 2>&1 &
  echo $! > /tmp/lowat-m/$name.pid; }
start off base 47711 --Freight:SendFile false
start on base 47712
start after after 47713
start lazy lazy 47714
