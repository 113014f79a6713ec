# Session 73's third device run: is gpu-allocator's allocate slower through vigil than
# through raw ash on this host? perf (run 2) put `MemoryType::allocate` at 8.25% of
# vigil's churn samples against 2.51% of raw ash's, in one binary. `.gl/bin/vigil-s73d`
# is the bench of a6365f1 with members-inline.patch and alloc-diag.patch (not committed
# as code): with VIGIL_DIAG_ALLOC set, each device prints at teardown how many allocate
# and free calls it made, their mean time (timed with `Instant` around the call, so
# ~20-40 ns of clock reads included on both paths), and its memory blocks. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s73/run-3.sh > $OUT/run-3.log 2>&1; tail -30 $OUT/run-3.log
set -u
xz -dc .gl/bin/vigil-s73d.sxz > .gl/bin/vigil-s73d && chmod +x .gl/bin/vigil-s73d
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2 3; do
  for p in vigil ash; do
    VIGIL_DIAG_ALLOC=1 timeout 60 .gl/bin/vigil-s73d bench --workload churn --path $p > $OUT/r$r-$p.txt 2>&1
    echo "r$r $p rc=$? ${SECONDS}s: $(grep -E '^  (create|destroy) +(vigil|ash) ' $OUT/r$r-$p.txt | awk '{print $1, $4}' | tr '\n' ' ')"
    grep DIAG $OUT/r$r-$p.txt
  done
done
echo "done ${SECONDS}s"
