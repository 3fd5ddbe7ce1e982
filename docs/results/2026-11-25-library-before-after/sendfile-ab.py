"""main's freight serve with Freight:SendFile on ÷ off: each download row's median MiB/s, paired by round (3 rounds), t interval on the log ratios."""
import json, math, os, statistics
d = os.path.dirname(os.path.abspath(__file__))
def rows(path):
    return {f"{r['scenario']} ({r['parameters'].get('label', '')})": r['bytesPerSecond']['median'] / 2**20
            for r in json.load(open(path))['results'] if r.get('verified') and r.get('bytesPerSecond')}
rounds = [(rows(f'{d}/sf-on-{i}.json'), rows(f'{d}/sf-off-{i}.json')) for i in (1, 2, 3)]
print('| row | SendFile on MiB/s (rounds) | off MiB/s (rounds) | on ÷ off | 95 % interval |')
print('|---|---|---|---:|---:|')
for k in rounds[0][0]:
    logs = [math.log(on[k] / off[k]) for on, off in rounds]
    half = 4.303 * statistics.stdev(logs) / math.sqrt(3)
    mean = statistics.mean(logs)
    print(f"| {k} | {' / '.join(f'{on[k]:,.0f}' for on, off in rounds)} | {' / '.join(f'{off[k]:,.0f}' for on, off in rounds)} | {math.exp(mean):.3f}× | {math.exp(mean - half):.3f}–{math.exp(mean + half):.3f} |")
