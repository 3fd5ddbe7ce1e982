#!/usr/bin/env python3
"""Static suite runs side by side: each run's freight / nginx req/s goals (estimate, 95 % interval, verdict) and the
server's and the client's CPU per response. The goals across the runs: `freight report RESULT.json... --markdown F`
(its "goals across runs" section). usage: runs.py RESULT.json..."""
import json, os, sys

SIZES = (4096, 16384, 131072, 1048576)
print("| run | started, rounds | " + " | ".join(f"{s // 1024} KiB" if s < 1048576 else "1 MiB" for s in SIZES) + " | freight µs/resp 4 KiB, 128 KiB (server / client) | nginx µs/resp 4 KiB, 128 KiB (server / client) |")
print("|---|---|" + "---|" * len(SIZES) + "---|---|")
for path in sys.argv[1:]:
    run = json.load(open(path))
    settings = run["settings"]
    cells = []
    for size in SIZES:
        name = f"freight / nginx req/s, {size // 1024 if size < 1048576 else 1} {'KiB' if size < 1048576 else 'MiB'}, 32 conns"
        ratio = next(r for r in run["ratios"] if r["name"] == name)
        cells.append(f"{ratio['estimate']:.3f} [{ratio['low']:.3f}–{ratio['high']:.3f}] {ratio['verdict']}")
    def cost(scenario, size):
        row = next(r for r in run["results"] if r["scenario"] == scenario and r["parameters"]["fileBytes"] == size)
        return f"{1e6 * row['server']['cpuSecondsPerResponse']:.1f} / {1e6 * row['client']['cpuSecondsPerResponse']:.1f}"
    freight = next(r for r in run["results"] if r["scenario"] == "static/freight")
    rounds = f"{freight['runs']} rounds" + (f" × {settings['runSeconds']} s" if freight["runs"] != 3 else " × 1 s")
    print(f"| {os.path.basename(path)} | {run['startedAt'][11:16]} UTC, {rounds} | " + " | ".join(cells)
          + f" | {cost('static/freight', 4096)}, {cost('static/freight', 131072)} | {cost('peer/nginx', 4096)}, {cost('peer/nginx', 131072)} |")
