#!/usr/bin/env bash
# Regenerates the project's published results in docs/results/ on this machine, in one go:
#   1. measures each suite's whole matrix: ./freight bench --suite SUITE --full --json docs/results/DATE-SUITE.json
#      (console to DATE-SUITE.txt);
#   2. renders each result with ./freight report: DATE-SUITE.html (the report with charts) and DATE-SUITE.tables.md
#      (its tables as Markdown);
#   3. keeps each suite's first chart as charts/SUITE.svg (standalone SVG), the image the README shows.
# The hand-written analyses (DATE-SUITE.md) are not touched: write them from the new figures.
#
# usage: scripts/regenerate-results.sh [--quick] [--report-only] [--out DIR] [SUITE...]
#   SUITE          transfer json threads static files tus (default: all of them; ~25 minutes)
#   --quick        the bench's --quick rows and sizes instead of --full (minutes; for a try, not for publishing)
#   --report-only  measure nothing: render the newest existing DATE-SUITE.json of each suite again
#   --out DIR      write there instead of docs/results (a try that must not replace published figures)
# Run it alone on the machine: anything else running skews the figures.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=()
report_only=0
suites=()
results=docs/results
while [ $# -gt 0 ]; do
  arg=$1
  shift
  case "$arg" in
    --quick) quick=(--quick) ;;
    --report-only) report_only=1 ;;
    --out) results=${1:?--out needs a directory}; shift ;;
    transfer|json|threads|static|files|tus) suites+=("$arg") ;;
    *) echo "regenerate-results: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
[ ${#suites[@]} -gt 0 ] || suites=(transfer json threads static files tus)

charts=$results/charts
mkdir -p "$charts"
date=$(date -u +%F)
failed=0

for suite in "${suites[@]}"; do
  if [ "$report_only" -eq 1 ]; then
    json=$(ls "$results"/????-??-??-"$suite".json 2>/dev/null | sort | tail -n 1 || true)
    if [ -z "$json" ]; then
      echo "regenerate-results: no $results/DATE-$suite.json to render; run without --report-only" >&2
      continue
    fi
  else
    json=$results/$date-$suite.json
    echo "regenerate-results: measuring $suite (console in ${json%.json}.txt)"
    if ! ./freight bench --suite "$suite" "${quick[@]:---full}" --no-progress --json "$json" > "${json%.json}.txt" 2>&1; then
      # The result file still lists what was measured; an unverified row carries no figure.
      echo "regenerate-results: $suite did not verify every row; see ${json%.json}.txt" >&2
      failed=1
    fi
  fi

  base=${json%.json}
  svg=$(mktemp -d)
  ./freight report "$json" --html "$base.html" --markdown "$base.tables.md" --svg "$svg"
  # Charts are named NN-ID.svg in report order: the first is the suite's headline chart.
  first=$(ls "$svg"/*.svg 2>/dev/null | sort | head -n 1 || true)
  if [ -n "$first" ]; then
    cp "$first" "$charts/$suite.svg"
  fi
  rm -rf "$svg"
done

exit "$failed"
