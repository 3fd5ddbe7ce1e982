#!/usr/bin/env bash
# Servers side by side, one environment each, rounds in rotating order; server CPU is utime + stime from /proc/PID/stat.
#   ab.sh put CLI ROUNDS SPEC...               1 GiB files-API PUTs with curl, each after a sync, the file deleted after it
#   ab.sh get CLI ROUNDS SPEC...               1 GiB files-API GETs (sendfile) with curl, after 40 warm-up GETs
#   ab.sh static CLI ROUNDS SECONDS SIZE SPEC...  wrk -t1 -c32 on /lab/static/freight/SIZE.bin (the first round warms up)
# SPEC is NAME:ENV, e.g. "A:FREIGHT_InlineScheduling=true" "B:X=1". Prints one line a round.
set -euo pipefail
mode="$1"; cli="$2"; rounds="$3"; shift 3
if [ "$mode" = static ]; then seconds="$1"; size="$2"; shift 2; fi
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
names=(); declare -A pid port; p=18460
for spec in "$@"; do
  name="${spec%%:*}"; envs="${spec#*:}"
  env $envs dotnet "$cli" serve --urls http://127.0.0.1:$p --data-dir "$work/$name" > "$work/$name.log" 2>&1 & pid[$name]=$!; port[$name]=$p
  names+=("$name"); p=$((p+1))
done
sleep 6
url() { echo "http://127.0.0.1:${port[$1]}$2"; }
put() { curl -sS -T "$work/big.bin" "$(url $1 /files/x.bin)" -o /dev/null -w '%{http_code} %{size_upload} %{speed_upload}'; curl -sS -X DELETE "$(url $1 /files/x.bin)" -o /dev/null; }
get() { curl -sS "$(url $1 /files/x.bin)" -o /dev/null -w '200 %{size_download} %{speed_download}'; }
static() { wrk -t1 -c32 -d${seconds}s "$(url $1 /lab/static/freight/$size.bin)"; }
case "$mode" in
  put) head -c 1073741824 /dev/urandom > "$work/big.bin"; for n in "${names[@]}"; do for i in 1 2 3 4; do sync; put $n > /dev/null; done; done ;;
  get) head -c 1073741824 /dev/urandom > "$work/big.bin"
       for n in "${names[@]}"; do curl -sS -T "$work/big.bin" "$(url $n /files/x.bin)" -o /dev/null; for i in $(seq 40); do get $n > /dev/null; done; done ;;
  static) for n in "${names[@]}"; do wrk -t1 -c32 -d2s "$(url $n /lab/static/freight/$size.bin)" > /dev/null; done ;;
  *) echo "mode: put, get or static" >&2; exit 2 ;;
esac
for r in $(seq "$rounds"); do
  line="round $r (load $(cut -d' ' -f1 /proc/loadavg)):"
  k=$(( r % ${#names[@]} ))
  for j in $(seq 0 $(( ${#names[@]} - 1 ))); do
    n=${names[$(( (j + k) % ${#names[@]} ))]}
    [ "$mode" = put ] && sync
    a=$(awk '{print $14+$15}' /proc/${pid[$n]}/stat)
    out=$($mode $n)
    b=$(awk '{print $14+$15}' /proc/${pid[$n]}/stat)
    if [ "$mode" = static ]; then
      if echo "$out" | grep -q "Non-2xx\|Socket errors"; then echo "errors: $out"; exit 1; fi
      reqs=$(echo "$out" | awk '/requests in/ {print $1}'); rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
      line="$line $n $rate req/s $(echo "scale=1; ($b - $a) * 10000 / $reqs" | bc) us;"
    else
      set -- $out
      { [ "$1" = 201 ] || [ "$1" = 200 ]; } && [ "$2" = 1073741824 ] || { echo "bad $mode: $out"; exit 1; }
      line="$line $n $(echo "scale=2; ($b - $a) / 100" | bc) s/GiB $(echo "$3 / 1048576" | bc) MiB/s;"
    fi
  done
  echo "$line"
done
