import re,statistics,sys
d=sys.argv[1]; A=sys.argv[2]; B=sys.argv[3]; n=int(sys.argv[4])
def get(f):
    t=open(f).read()
    i=t.index("draws (10000"); j=t.index("dispatches (10000")
    out=[]
    for b in (t[i:j], t[j:]):
        v=re.search(r"^  encode     vigil\s+[\d.]+\s+([\d.]+)",b,re.M)
        s=re.search(r"^  submit     vigil\s+([\d.]+)",b,re.M)
        r=re.search(r"encode: vigil/ash\s+([\d.]+)",b)
        q=re.search(r"submit: vigil/ash\s+([\d.]+)",b)
        out.append(dict(enc_ns=float(v.group(1)),sub_us=float(s.group(1)),enc=float(r.group(1)),sub=float(q.group(1))))
    return out
for w,i in (("draws",0),("dispatches",1)):
    rows=[(get(f"{d}/{A}-r{r}.txt")[i],get(f"{d}/{B}-r{r}.txt")[i]) for r in range(1,n+1)]
    for k in ("enc_ns","enc","sub_us","sub"):
        q=[b[k]/a[k] for a,b in rows]
        print(f"{w:10} {k:7} {A} median {statistics.median([a[k] for a,b in rows]):8.3f} {B} median {statistics.median([b[k] for a,b in rows]):8.3f}  {B}/{A} per round median {statistics.median(q):.3f} ({sum(x<1 for x in q)} of {n} below 1)")
