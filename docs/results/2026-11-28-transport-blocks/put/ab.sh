#!/usr/bin/env bash
# Rounds of the files suite's PUT rows: each round runs one bench invocation per variant, the order rotated a step
# each round. A variant is NAME:ENV=VALUE[,ENV=VALUE…]; the bench passes the environment on to its embedded server.
#   ab.sh CLI.dll ROUNDS OUTDIR VARIANT...
# This page's sets (64 KiB was the default before it; FREIGHT_RCVLOWAT needs rcvlowat.patch, FREIGHT_TEMP_MAXREQBUF
# buffer/request-buffer.patch):
#   put/      A:FREIGHT_TransportBlockBytes=65536 D:FREIGHT_TransportBlockBytes=262144 M:FREIGHT_TransportBlockBytes=262144,FREIGHT_RCVLOWAT=1
#   first/    A:FREIGHT_TransportBlockBytes=65536 L:FREIGHT_RCVLOWAT=1 M:FREIGHT_TransportBlockBytes=262144,FREIGHT_RCVLOWAT=1
#   beyond/   D:FREIGHT_TransportBlockBytes=262144 B:FREIGHT_TransportBlockBytes=1048576 K:FREIGHT_TransportBlockBytes=1048576,Kestrel__Limits__MaxRequestBufferSize=4194304 (K's second setting never reached Kestrel)
#   buffer/   D:FREIGHT_TransportBlockBytes=262144 B:FREIGHT_TransportBlockBytes=1048576 K:FREIGHT_TransportBlockBytes=1048576,FREIGHT_TEMP_MAXREQBUF=4194304
set -euo pipefail
cli=$1; rounds=$2; out=$3; shift 3
variants=("$@"); n=${#variants[@]}
mkdir -p "$out"
for ((r = 1; r <= rounds; r++)); do
  for ((i = 0; i < n; i++)); do
    variant=${variants[$(( (i + r) % n ))]}
    name=${variant%%:*}
    IFS=, read -ra envs <<< "${variant#*:}"
    env "${envs[@]}" dotnet "$cli" bench --suite files --filter put --size 1073741824 --runs 10 --max-seconds 0 \
      --no-report --no-progress --json "$out/r$r-$name.json" > "$out/r$r-$name.txt" 2>&1
    echo "round $r $name done $(date +%T)"
  done
done
