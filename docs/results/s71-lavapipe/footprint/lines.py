import sys, re, collections
# Distinct 64-byte code lines executed (Ir>0) per object, from a callgrind --dump-instr=yes file.
path = sys.argv[1]
ob_names = {}
cur_ob = None
addr = 0
lines = collections.defaultdict(set)
irs = collections.defaultdict(int)
lineir = collections.defaultdict(int)
in_calls = 0
for raw in open(path):
    l = raw.rstrip('\n')
    if not l or l[0] == '#':
        continue
    m = re.match(r'^(c?ob)=\((\d+)\)(?: (.*))?$', l)
    if m:
        kind, i, name = m.groups()
        if name: ob_names[i] = name
        if kind == 'ob': cur_ob = ob_names.get(i, i)
        continue
    if re.match(r'^(fl|fi|fe|fn|cfi|cfl|cfn)=', l):
        continue
    if l.startswith('calls='):
        # next line is the call cost line: its position is the call site; skip its cost
        in_calls = 1
        parts = l.split()
        # target position in calls= line; ignore
        continue
    if re.match(r'^(0x[0-9a-f]+|[+-]\d+|\*)', l):
        tok = l.split()
        a = tok[0]
        if a.startswith('0x'): addr = int(a, 16)
        elif a[0] in '+-': addr += int(a)
        # '*' same
        if in_calls:
            in_calls = 0
            continue
        ir = int(tok[2]) if len(tok) > 2 else 0
        if ir > 0:
            lineir[(cur_ob, addr >> 6)] += ir
            lines[cur_ob].add(addr >> 6)
            irs[cur_ob] += ir
        continue
tot = 0
for ob, s in sorted(lines.items(), key=lambda kv: -len(kv[1])):
    print(f"{len(s):6d} lines ({len(s)*64/1024:7.1f} KiB)  Ir {irs[ob]:>12,}  {ob}")
    tot += len(s)
print(f"{tot:6d} lines total ({tot*64/1024:.1f} KiB)")
hot = collections.Counter()
for (ob, ln), ir in lineir.items():
    if ir >= 7000:
        hot[ob] += 1
print("lines with >= 7000 Ir (run about once per unit or more):")
for ob, n in hot.most_common():
    print(f"{n:6d} lines ({n*64/1024:6.1f} KiB) {ob}")
print(sum(hot.values()), "hot lines,", sum(hot.values())*64/1024, "KiB")
