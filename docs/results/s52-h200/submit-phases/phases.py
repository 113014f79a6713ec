"""Medians of the submission marks that phases.patch (or phases-2.patch) prints
("PHASES lock=.. checks=.. ...", µs since `Device::submit` began), per build, over every
marked submission of the files given, marks in the order they were printed; with
phases-2.patch also the median time of `resolve` per command buffer ("RESOLVE ..."):
python3 phases.py BUILD=FILE.err[,FILE.err...] ..."""
import statistics
import sys


def marks(paths):
    rows = []
    for path in paths:
        for line in open(path):
            if line.startswith("PHASES "):
                rows.append(dict((k, float(v)) for k, v in
                                 (kv.split("=") for kv in line.split()[1:])))
    return rows


def main():
    for arg in sys.argv[1:]:
        build, files = arg.split("=", 1)
        rows = marks(files.split(","))
        print(f"== {build}: {len(rows)} submissions marked")
        names = []
        for r in rows:
            names.extend(n for n in r if n not in names and n != "natives")
        before = 0.0
        for name in names:
            at = statistics.median(r[name] for r in rows if name in r)
            print(f"{name:<8} at {at:7.2f} us (+{at - before:.2f})")
            before = at
        resolves = [float(line.split()[1]) for path in files.split(",")
                    for line in open(path) if line.startswith("RESOLVE ")]
        if resolves:
            print(f"resolve of one command buffer (phases-2.patch): median "
                  f"{statistics.median(resolves):.2f} us over {len(resolves)}")


if __name__ == "__main__":
    main()
