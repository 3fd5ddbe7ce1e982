"""Before/after issue 17: each verified row's median MiB/s, after ÷ before, paired by round (3 rounds), with a t interval on the log ratios."""
import json, math, statistics, sys, os
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}
def rows(path):
    out = {}
    for r in json.load(open(path))['results']:
        if not r.get('verified') or not r.get('bytesPerSecond'): continue
        p = r['parameters']
        key = f"{r['scenario']} ({p.get('label', '')}{', ' + str(p['payloadBytes'] >> 20) + ' MiB' if 'payloadBytes' in p and 'label' not in p else ''})"
        out[key] = r['bytesPerSecond']['median'] / 2**20
    return out
rounds = [(rows(f'{d}/before-{i}.json'), rows(f'{d}/after-{i}.json')) for i in (1, 2, 3) if os.path.exists(f'{d}/after-{i}.json')]
keys = [k for k in rounds[0][0] if all(k in b and k in a for b, a in rounds)]
print('| row | before MiB/s (rounds) | after MiB/s (rounds) | after ÷ before | 95 % interval |')
print('|---|---|---|---:|---:|')
for k in keys:
    ratios = [a[k] / b[k] for b, a in rounds]
    logs = [math.log(r) for r in ratios]
    mean = statistics.mean(logs)
    text = ''
    if len(logs) > 1:
        half = T95[len(logs) - 1] * statistics.stdev(logs) / math.sqrt(len(logs))
        text = f'{math.exp(mean - half):.3f}–{math.exp(mean + half):.3f}'
    print(f"| {k} | {' / '.join(f'{b[k]:,.0f}' for b, a in rounds)} | {' / '.join(f'{a[k]:,.0f}' for b, a in rounds)} | {math.exp(mean):.3f}× | {text} |")
