#!/usr/bin/env bash
# Interleaved bench invocations of named variants, in the order given; a variant is NAME:ENV=VALUE[,ENV=VALUE…], and the
# bench passes the environment on to its embedded servers.
#   ab-suite.sh CLI.dll OUTDIR "ORDER" "BENCH ARGS" VARIANT...     e.g. ORDER "D B B D D B"
set -euo pipefail
cli=$1; out=$2; order=$3; args=$4; shift 4
mkdir -p "$out"
declare -A envs
for v in "$@"; do envs[${v%%:*}]=${v#*:}; done
i=0
for name in $order; do
  i=$((i + 1))
  IFS=, read -ra e <<< "${envs[$name]}"
  # shellcheck disable=SC2086
  env "${e[@]}" dotnet "$cli" bench $args --no-report --no-progress --json "$out/i$i-$name.json" > "$out/i$i-$name.txt" 2>&1
  echo "$i $name $(date +%T)"
done
