"""Each goal ratio of the five plain-N.json and pinned-N.json runs beside each other: estimates, spread, CV, interval width."""
import json, math, os, statistics, sys
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
modes = {}
for mode in ('plain', 'pinned'):
    runs = []
    for i in range(1, 6):
        try: runs.append(json.load(open(f'{d}/{mode}-{i}.json')))
        except FileNotFoundError: pass
    modes[mode] = runs
names = [r['name'] for r in modes['plain'][0]['ratios'] if r.get('goal') is not None or r['name'].startswith('A/A')]
for r in modes["plain"][0]["suiteChecks"]:
    if r["control"]["name"] not in names: names.append(r["control"]["name"])
print('| goal ratio | setting | estimates (5 runs) | spread max/min | CV of log | mean 95 % half-width | verdicts |')
print('|---|---|---|---:|---:|---:|---|')
summary = {}
for name in names:
    for mode, runs in modes.items():
        est, hw, ver = [], [], []
        for run in runs:
            rows = [r for r in run['ratios'] if r['name'] == name] + [c['control'] for c in run['suiteChecks'] if c['control']['name'] == name]
            if not rows: continue
            r = rows[0]
            e = r.get('estimate', r.get('value'))
            if e is None: continue
            est.append(e)
            if r.get('low') and r.get('high'): hw.append(math.sqrt(r['high'] / r['low']) - 1)
            ver.append(r.get('verdict', '-'))
        if not est: continue
        logs = [math.log(e) for e in est]
        cv = statistics.stdev(logs) if len(logs) > 1 else float('nan')
        summary.setdefault(name, {})[mode] = (max(est) / min(est), cv, statistics.mean(hw) if hw else float('nan'))
        print(f"| {name} | {mode} | {' '.join(f'{e:.3f}' for e in est)} | {max(est)/min(est):.3f} | {cv:.3f} | {statistics.mean(hw) if hw else float('nan'):.3f} | {' '.join(ver)} |")
wins = {'plain': 0, 'pinned': 0}
for name, m in summary.items():
    if len(m) == 2:
        wins['plain' if m['plain'][1] < m['pinned'][1] else 'pinned'] += 1
print()
print('steadier (lower CV of log estimate across runs) per goal:', wins)
print('median CV: plain', statistics.median(m['plain'][1] for m in summary.values() if 'plain' in m), 'pinned', statistics.median(m['pinned'][1] for m in summary.values() if 'pinned' in m))
print('median half-width: plain', statistics.median(m['plain'][2] for m in summary.values() if 'plain' in m and not math.isnan(m['plain'][2])), 'pinned', statistics.median(m['pinned'][2] for m in summary.values() if 'pinned' in m and not math.isnan(m['pinned'][2])))
