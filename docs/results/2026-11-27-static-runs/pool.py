#!/usr/bin/env python3
"""Static suite runs side by side: each run's freight / nginx req/s goals (estimate, 95 % interval, verdict), the
server's and the client's CPU per response, and the goals pooled across runs (a t interval on the runs' log estimates,
so run-to-run variation counts). usage: pool.py RESULT.json..."""
import json, math, os, statistics, sys

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093}
SIZES = (4096, 16384, 131072, 1048576)
GOALS = {4096: 0.9, 16384: 0.9, 131072: 1.2, 1048576: 1.2}
estimates = {size: [] for size in SIZES}
print("| run | started, rounds | " + " | ".join(f"{s // 1024} KiB" if s < 1048576 else "1 MiB" for s in SIZES) + " | freight µs/resp 4 KiB, 128 KiB (server / client) | nginx µs/resp 4 KiB, 128 KiB (server / client) |")
print("|---|---|" + "---|" * len(SIZES) + "---|---|")
for path in sys.argv[1:]:
    run = json.load(open(path))
    settings = run["settings"]
    cells = []
    for size in SIZES:
        name = f"freight / nginx req/s, {size // 1024 if size < 1048576 else 1} {'KiB' if size < 1048576 else 'MiB'}, 32 conns"
        ratio = next(r for r in run["ratios"] if r["name"] == name)
        estimates[size].append(ratio["estimate"])
        cells.append(f"{ratio['estimate']:.3f} [{ratio['low']:.3f}–{ratio['high']:.3f}] {ratio['verdict']}")
    def cost(scenario, size):
        row = next(r for r in run["results"] if r["scenario"] == scenario and r["parameters"]["fileBytes"] == size)
        return f"{1e6 * row['server']['cpuSecondsPerResponse']:.1f} / {1e6 * row['client']['cpuSecondsPerResponse']:.1f}"
    freight = next(r for r in run["results"] if r["scenario"] == "static/freight")
    rounds = f"{freight['runs']} rounds" + (f" × {settings['runSeconds']} s" if freight["runs"] != 3 else " × 1 s")
    print(f"| {os.path.basename(path)} | {run['startedAt'][11:16]} UTC, {rounds} | " + " | ".join(cells)
          + f" | {cost('static/freight', 4096)}, {cost('static/freight', 131072)} | {cost('peer/nginx', 4096)}, {cost('peer/nginx', 131072)} |")
print()
print("| goal | runs | per-run estimates (min–median–max) | met / MISSED / inconclusive | pooled across runs [95 %] | pooled verdict |")
print("|---|---|---|---|---|---|")
for path_size in SIZES:
    logs = [math.log(e) for e in estimates[path_size]]
    n = len(logs)
    mean, sd = statistics.mean(logs), statistics.stdev(logs)
    half = T975[n - 1] * sd / math.sqrt(n)
    low, high, goal = math.exp(mean - half), math.exp(mean + half), GOALS[path_size]
    verdict = "met" if low >= goal else "MISSED" if high < goal else "inconclusive"
    runs = [json.load(open(p)) for p in sys.argv[1:]]
    name_size = f"{path_size // 1024} KiB" if path_size < 1048576 else "1 MiB"
    verdicts = [next(r for r in run["ratios"] if r["name"] == f"freight / nginx req/s, {name_size}, 32 conns")["verdict"] for run in runs]
    ordered = sorted(estimates[path_size])
    print(f"| freight / nginx req/s, {name_size} ≥ {goal}× | {n} | {ordered[0]:.3f}–{statistics.median(ordered):.3f}–{ordered[-1]:.3f} | "
          f"{verdicts.count('met')} / {verdicts.count('missed')} / {verdicts.count('inconclusive')} | {math.exp(mean):.3f} [{low:.3f}–{high:.3f}] | {verdict} |")
