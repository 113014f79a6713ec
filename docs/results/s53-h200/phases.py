"""Medians of the marks phases-4.patch prints, one line per timed or untimed submission
("PHASES lead=.. lock=.. ... ret=.. total=.. minflt=.. majflt=.. vcsw=.. ivcsw=.."): `lead`
is from the bench's clock read to the call's first, each mark is µs since the call began,
`ret` after the inner function's locals dropped, `total` the bench's own figure, the last
four the thread's page faults and context switches across the call. The err files hold
`draws` then `dispatches` (split at the line "draws: N s"):
python3 phases.py BUILD=FILE.err[,FILE.err...] ..."""
import statistics
import sys


def marks(paths):
    out = {"draws": [], "dispatches": []}
    for path in paths:
        workload = "draws"
        for line in open(path):
            if line.startswith("draws:"):
                workload = "dispatches"
            if line.startswith("PHASES "):
                out[workload].append(dict((k, float(v)) for k, v in
                                          (kv.split("=") for kv in line.split()[1:])))
    return out


def main():
    for arg in sys.argv[1:]:
        build, files = arg.split("=", 1)
        for workload, rows in marks(files.split(",")).items():
            if not rows:
                continue
            print(f"== {build} {workload}: {len(rows)} submissions")
            names = []
            for r in rows:
                names.extend(n for n in r if n not in names and n != "natives")
            before = 0.0
            for name in names:
                at = statistics.median(r[name] for r in rows if name in r)
                if name == "lead":
                    print(f"  lead     {at:7.2f} us before the call's first mark")
                elif name == "total":
                    print(f"  total    {at:7.2f} us by the bench's clock")
                elif name in ("minflt", "majflt", "vcsw", "ivcsw"):
                    print(f"  {name:8} median {at:g}, max {max(r[name] for r in rows):g}")
                else:
                    print(f"  {name:8} at {at:7.2f} us (+{at - before:.2f})")
                    before = at


if __name__ == "__main__":
    main()
