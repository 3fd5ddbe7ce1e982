# The largest and median change between two runs of one command (either run the base), per figure, over the sessions
# given: python3 floors.py session-1 session-2. Pairs are taken within and across the sessions.
import glob, itertools, json, statistics, sys

FIGURES = {'requests/s': 'requestsPerSecond.median', 'p50': 'latencySeconds.p50', 'p99': 'latencySeconds.p99',
           'mean latency': 'latencySeconds.mean', 'server CPU/GiB': 'server.cpuSecondsPerGiB',
           'client CPU/GiB': 'client.cpuSecondsPerGiB', 'gen 0': 'counters.gen0Collections',
           'GC heap': 'counters.gcHeapBytes', 'working set': 'server.workingSetBytesMax'}

def value(row, path):
    for key in path.split('.'):
        row = row.get(key) if isinstance(row, dict) else None
    return row

changes = {}
for command in ['list', 'small', 'big']:
    rows = [json.load(open(f))['results'][0] for d in sys.argv[1:] for f in sorted(glob.glob(f'{d}/{command}[0-9].json'))]
    for figure, path in FIGURES.items():
        values = [v for v in (value(r, path) for r in rows) if v]
        changes.setdefault(figure, []).extend((max(a, b) / min(a, b) - 1) * 100 for a, b in itertools.permutations(values, 2))
for figure, found in changes.items():
    print(f'{figure:15} largest {max(found):7.1f} %  median {statistics.median(found):5.1f} %  pairs {len(found)}')
