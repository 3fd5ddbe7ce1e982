import json,sys
for f in sys.argv[1:]:
    d=json.load(open(f)); print(f)
    for r in d['results']:
        p=r['parameters']; s=r['server']
        print(f"  {p['label']:<26} {r['requestsPerSecond']['median']:>9.0f} req/s  µs/resp {s['cpuSecondsPerResponse']*1e6:6.1f}  alloc {s['allocatedBytesPerTransfer']/1024:8.2f} KiB  gc {s['gen0']}/{s['gen1']}/{s['gen2']}  ws {s['workingSetBytesMax']/2**20:.0f} MiB  p99 {r['latencySeconds']['p99']*1e3:.1f}  verified {r['verified']}")
