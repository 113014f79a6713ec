"""Code footprint of the bench's timed submissions: distinct 64-byte lines of instructions
executed inside `Device::submit` when called from `vigil_submit_timed` (not the first,
untimed frames), with the instructions per function, from a callgrind run made by
footprint.sh (--dump-instr=yes, --separate-callers=20 to tell the callers apart).
python3 footprint.py CALLGRIND_OUT [TOP]"""
import re,collections,sys
f=sys.argv[1]; top=int(sys.argv[2]) if len(sys.argv)>2 else 30
names={};cur=None;addr=0;skip=False
lines=collections.defaultdict(set); ir=collections.Counter()
for line in open(f):
    line=line.rstrip('\n')
    m=re.match(r'^fn=\((\d+)\)(?: (.*))?$',line)
    if m:
        if m.group(2): names[m.group(1)]=m.group(2)
        cur=names.get(m.group(1)); continue
    m=re.match(r'^c(fn|ob|fi|fl)=\((\d+)\)(?: (.*))?$',line)
    if m:
        if m.group(1)=='fn' and m.group(3): names[m.group(2)]=m.group(3)
        continue
    if line.startswith('calls='): skip=True; continue
    if not line or line[0] not in '0123456789+-*': continue
    parts=line.split(); a=parts[0]
    if a.startswith('0x'): addr=int(a,16)
    elif a.startswith('+'): addr+=int(a[1:])
    elif a.startswith('-'): addr-=int(a[1:])
    if skip: skip=False; continue
    if 'vigil_submit_timed' not in (cur or ''): continue
    base=(cur or '?').split("'")[0]
    lines[base].add(addr>>6); ir[base]+=int(parts[-1]) if len(parts)>1 else 0
s=set()
for v in lines.values(): s|=v
print('timed: distinct lines',len(s),'Ir',sum(ir.values()))
for l,i,b in sorted(((len(v),ir[k],k) for k,v in lines.items()),reverse=True)[:top]: print('%4d lines %7d Ir %s'%(l,i,b[:140]))
