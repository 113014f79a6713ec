import sys, re, collections
path = sys.argv[1]; want = 'target/release/vigil'
names = {'ob':{}, 'fn':{}}
cur_ob = cur_fn = None; addr = 0; in_calls = 0
lineir = collections.defaultdict(int); linefn = {}; lineaddrs = collections.defaultdict(set)
for raw in open(path):
    l = raw.rstrip('\n')
    if not l or l[0] == '#': continue
    m = re.match(r'^(c?)(ob|fn)=\((\d+)\)(?: (.*))?$', l)
    if m:
        c, kind, i, name = m.groups()
        if name: names[kind][i] = name
        if not c:
            if kind == 'ob': cur_ob = names['ob'].get(i, i)
            else: cur_fn = names['fn'].get(i, i)
        continue
    if re.match(r'^(fl|fi|fe|cfi|cfl)=', l): continue
    if l.startswith('calls='): in_calls = 1; continue
    if re.match(r'^(0x[0-9a-f]+|[+-]\d+|\*)', l):
        tok = l.split(); a = tok[0]
        if a.startswith('0x'): addr = int(a, 16)
        elif a[0] in '+-': addr += int(a)
        if in_calls: in_calls = 0; continue
        ir = int(tok[2]) if len(tok) > 2 else 0
        if ir > 0 and cur_ob and want in cur_ob:
            lineir[addr >> 6] += ir; linefn.setdefault(addr >> 6, cur_fn); lineaddrs[addr>>6].add(addr)
byfn = collections.defaultdict(lambda: [0,0,0])
for ln, ir in lineir.items():
    if ir >= 7000:
        b = byfn[linefn[ln]]; b[0] += 1; b[1] += len(lineaddrs[ln]); b[2] += ir
tot=[0,0,0]
for f, (n, a, ir) in sorted(byfn.items(), key=lambda kv: -kv[1][0])[:30]:
    print(f"{n:4d} lines {a:5d} instrs ({a/n:4.1f}/line) Ir/unit {ir/8000:7.1f}  {f[:110]}")
for f,(n,a,ir) in byfn.items(): tot[0]+=n; tot[1]+=a; tot[2]+=ir
print(tot[0], "lines", tot[1], "distinct instrs", tot[2]/8000, "Ir/unit")
