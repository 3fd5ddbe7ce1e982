# Medians per client and server of readers-abc.sh output, and B and C against A round by round.   summary.py readers.txt
import re,statistics as st,collections,sys
d=collections.defaultdict(dict)
for l in open(sys.argv[1]):
    m=re.match(r"(\S+)\s+buf\s+(\S+) round (\d+): ([\d.]+) s/GiB\s+(\d+) MiB/s",l)
    if m: d[(m[2],int(m[3]))][m[1]]=(float(m[4]),int(m[5]))
bufs=sorted({k[0] for k in d})
for b in bufs:
    rounds=sorted(r for (bb,r) in d if bb==b)
    for s in ["A","B","C","ng"]:
        v=[d[(b,r)][s] for r in rounds if s in d[(b,r)]]
        if not v: continue
        c=[x[0] for x in v]; m=[x[1] for x in v]
        line=f"{b:>8} {s:>2}: cpu {st.median(c):.3f} ({min(c):.3f}-{max(c):.3f})  MiB/s {st.median(m):.0f} ({min(m)}-{max(m)})"
        if s in "BC":
            rs=[d[(b,r)][s][1]/d[(b,r)]["A"][1] for r in rounds]; rc=[d[(b,r)][s][0]/d[(b,r)]["A"][0] for r in rounds]
            line+=f"  vs A: speed med {st.median(rs):.2f} faster {sum(x>1 for x in rs)}/{len(rs)}, cpu med {st.median(rc):.2f} lower {sum(x<1 for x in rc)}/{len(rc)}"
        print(line)
