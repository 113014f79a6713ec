"""Branches mispredicted in callgrind's model, and instructions, per churn unit, by object.

Usage: python3 by_object.py functions-churn-PATH.txt  (the `.txt.xz` here, decompressed)
Lines without an object are code inlined into the bench binary from std or a dependency,
so they count as the bench binary's. 8,000 units (`--quick`).
"""
import collections
import re
import sys

UNITS = 8000
mis = collections.Counter()
ins = collections.Counter()
state = 0
for line in open(sys.argv[1]):
    if "file:function" in line:
        state = 1
        continue
    if state == 1 and line.startswith("---"):
        state = 2
        continue
    if state == 2:
        if not line.strip() or line.startswith("---"):
            break
        toks = re.sub(r"\(\s*[\d.]+%\)", "", line).split()
        ir, _bc, bcm, _bi, bim = (0 if t == "." else int(t.replace(",", "")) for t in toks[:5])
        obj = re.search(r"\[([^\]]*)\]\s*$", " ".join(toks[5:]))
        name = obj.group(1).split("/")[-1] if obj else "vigil"
        if name == "vigil":
            name = "bench binary"
        mis[name] += bcm + bim
        ins[name] += ir
for name, m in mis.most_common():
    if ins[name] >= UNITS:
        print(f"{name:24s} mispredicted {m / UNITS:6.1f} a unit, instructions {ins[name] / UNITS:8.1f}")
print(f"{'total':24s} mispredicted {sum(mis.values()) / UNITS:6.1f} a unit, "
      f"instructions {sum(ins.values()) / UNITS:8.1f}")
