"""Each goal's verdict in several result files side by side; FLIP marks a goal met in one run and MISSED in another.
Usage: python3 consistency.py RUN.json...  (exit code 1 when any goal flips)"""
import json, sys

runs = [json.load(open(path)) for path in sys.argv[1:]]
names = [r['name'] for r in runs[0]['ratios'] if r.get('goal') is not None]
flips = 0
print('| goal | ' + ' | '.join(f'run {i + 1}' for i in range(len(runs))) + ' | same verdict? |')
print('|---|' + '---|' * len(runs) + '---|')
for name in names:
    cells, verdicts = [], set()
    for run in runs:
        row = next((r for r in run['ratios'] if r['name'] == name), None)
        if row is None or row.get('value') is None:
            cells.append('not measured')
            continue
        verdict = row.get('verdict') or ('met (no interval)' if row.get('goalMet') else 'MISSED (no interval)')
        verdicts.add(verdict.split()[0].lower())
        estimate = row.get('estimate', row['value'])
        interval = f" [{row['low']:.3f}–{row['high']:.3f}]" if row.get('low') is not None else ''
        cells.append(f"{verdict.replace('missed', 'MISSED')} {estimate:.3f}{interval}")
    flip = 'met' in verdicts and 'missed' in verdicts
    flips += flip
    same = 'FLIP' if flip else ('yes' if len(verdicts) <= 1 else 'no flip')
    goal = next(r for r in runs[0]['ratios'] if r['name'] == name)
    print(f"| {name} {'≤' if goal.get('lowerIsBetter') else '≥'} {goal['goal']} | " + ' | '.join(cells) + f' | {same} |')
print()
print(f'{flips} goal(s) met in one run and MISSED in another.')
sys.exit(1 if flips else 0)
