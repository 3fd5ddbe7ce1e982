import json, glob, os, random, statistics as st
def load(side):
    cpu=[]; rps=[]; alloc=[]
    for f in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), f'{side}-*.json'))):
        r=json.load(open(f))['results'][0]
        cpu += r['server']['cpuSecondsPerGiBSamples']
        rps += r['requestsPerSecond']['samples']
        alloc.append(r['counters']['allocationBytesPerSecond']/r['requestsPerSecond']['median'])
    return cpu, rps, alloc
res={}
for side in ['nocheck','check']:
    cpu,rps,alloc=load(side); res[side]=(cpu,rps,alloc)
    us=[c*4096/2**30*1e6 for c in cpu]  # s/GiB -> µs per 4 KiB response (payload bytes)
    print(side, 'runs',len(cpu),'server µs/response median %.2f (min %.2f max %.2f)'%(st.median(us),min(us),max(us)),
          'req/s median %.0f (%.0f–%.0f)'%(st.median(rps),min(rps),max(rps)), 'alloc B/resp per file', ['%.0f'%a for a in alloc])
random.seed(1)
def boot(a,b,n=4000):
    rs=sorted(st.median(random.choices(b,k=len(b)))/st.median(random.choices(a,k=len(a))) for _ in range(n))
    return rs[int(0.025*n)], rs[int(0.975*n)]
a,b=res['nocheck'][0],res['check'][0]
print('server CPU/response check/nocheck: %.3f, 95%% [%.3f–%.3f]'%((st.median(b)/st.median(a),)+boot(a,b)))
a,b=res['nocheck'][1],res['check'][1]
print('req/s check/nocheck: %.3f, 95%% [%.3f–%.3f]'%((st.median(b)/st.median(a),)+boot(a,b)))
