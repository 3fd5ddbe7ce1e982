#!/usr/bin/env bash
# Fuzzes Freight's parsers with AFL++ driving SharpFuzz harnesses (test/Freight.Fuzz):
#   scripts/fuzz.sh [--seconds N] [--executions E] [TARGET...]     (default: 30 s each, every target)
# Targets: multipart, byte-range, digest-fields, tus-headers, storage-keys. Each run starts from the committed
# corpus (test/Freight.Fuzz/corpus/TARGET) and stops after N seconds (afl-fuzz -V), or once it has run about E
# inputs (afl-fuzz -E) if that comes first. Prints one line per target
#   fuzz: target=T executions=E exec_per_sec=R paths=P edges=G crashes=C hangs=H seconds=N
# and exits non-zero when any target found a crash or a hang (printing each input and what escaped) or could
# not run. Findings go to artifacts/fuzz/TARGET (replaced on every run). Installs afl++ when missing (root + apt).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=30
executions=()
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#--seconds=}"; shift ;;
    --executions) executions=(-E "$2"); shift 2 ;;
    --executions=*) executions=(-E "${1#--executions=}"); shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(multipart byte-range digest-fields tus-headers storage-keys)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for target in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $target "* ]] || { echo "fuzz: unknown target $target (targets: ${all[*]})" >&2; exit 2; }
done

if ! command -v afl-fuzz >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "fuzz: afl-fuzz is missing and cannot be installed here (needs root and apt-get): apt-get install afl++" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$(apt-cache policy afl++ 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" { print $2 }')" ]; then
    apt-get update -qq
  fi
  echo "fuzz: installing afl++"
  apt-get install -y -qq --no-install-recommends afl++ >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends afl++ >/dev/null; }
fi

# The harnesses, built once (Release, like the code under test ships). The copy AFL++ runs has Freight.dll and
# Freight.AspNetCore.dll (the tus header parsers) instrumented by SharpFuzz (edge coverage); the build output stays plain for replaying crashes.
work=artifacts/fuzz
plain=test/Freight.Fuzz/bin/Release/net10.0
dotnet tool restore >/dev/null
dotnet build test/Freight.Fuzz -c Release -nologo -v q -clp:ErrorsOnly
rm -rf "$work/bin"
mkdir -p "$work"
cp -r "$plain" "$work/bin"
for assembly in Freight.dll Freight.AspNetCore.dll; do
  dotnet tool run sharpfuzz "$work/bin/$assembly" >/dev/null
done

export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
# dotnet itself carries no AFL++ instrumentation (the harness's assemblies do), and the machine is shared, so no
# core is claimed; the runtime's start-up (JIT, under load) needs more than the default 10 s fork-server time-out.
export AFL_SKIP_BIN_CHECK=1 AFL_NO_AFFINITY=1 AFL_FORKSRV_INIT_TMOUT=60000

stat() { awk -v key="$1" -F' *: *' '$1 == key { print $2 }' "$2"; }
failed=0
for target in "${targets[@]}"; do
  out="$work/$target"
  rm -rf "$out"
  # -t 10000: an input that runs 10 s is a hang (a single input takes well under a millisecond when the harness is
  # warm; the slack covers JIT on a new path on a loaded machine). -m none: the .NET runtime reserves a large heap.
  started=$SECONDS
  if ! afl-fuzz -V "$seconds" "${executions[@]}" -i "test/Freight.Fuzz/corpus/$target" -o "$out" -t 10000 -m none \
      -- dotnet "$work/bin/Freight.Fuzz.dll" "$target" >"$out.log" 2>&1; then
    echo "fuzz: target=$target did not run; the end of $out.log:"
    tail -n 25 "$out.log"
    failed=1
    continue
  fi

  stats="$out/default/fuzzer_stats"
  crashes=$(stat saved_crashes "$stats")
  hangs=$(stat saved_hangs "$stats")
  echo "fuzz: target=$target executions=$(stat execs_done "$stats") exec_per_sec=$(stat execs_per_sec "$stats")" \
    "paths=$(stat corpus_count "$stats") edges=$(stat edges_found "$stats") crashes=$crashes hangs=$hangs seconds=$((SECONDS - started))"
  for input in "$out"/default/crashes/id:* "$out"/default/hangs/id:*; do
    [ -e "$input" ] || continue
    echo "fuzz: target=$target input=$input"
    echo "fuzz: replay with: dotnet $plain/Freight.Fuzz.dll $target '$input'"
    # Replayed on the plain build: what escaped, with its stack trace.
    timeout 300 dotnet "$plain/Freight.Fuzz.dll" "$target" "$input" </dev/null 2>&1 | head -n 30 || true
  done
  if [ "${crashes:-0}" != 0 ] || [ "${hangs:-0}" != 0 ]; then
    failed=1
  fi
done
exit "$failed"
