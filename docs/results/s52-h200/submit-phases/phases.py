"""Medians of the submission marks that phases.patch prints ("PHASES pre=.. plan=.. ...",
µs since `Device::submit` began), per build, over every marked submission of the files
given: python3 phases.py BUILD=FILE.err[,FILE.err...] ..."""
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
        before = 0.0
        for name in ["lock", "checks", "pre", "plan", "hal", "cbs", "flight", "poll", "end"]:
            at = statistics.median(r[name] for r in rows if name in r)
            print(f"{name:<8} at {at:7.2f} us (+{at - before:.2f})")
            before = at


if __name__ == "__main__":
    main()
