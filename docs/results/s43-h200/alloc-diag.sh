# Session 43: do the threads lose their rate to memory handed back to the kernel and
# faulted in again? vigil-count threads (vigil over the test backend) and parallel-record
# (vigil and raw ash), each with glibc's defaults and with its mmap and trim thresholds
# raised so freed memory stays in the process, alternated. Run from the checkout after
# `source .gl/enter.sh`; outputs go to $OUT.
keep="glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=67108864"
for r in 1 2; do
  for mode in default keep; do
    t=""; [ $mode = keep ] && t=$keep
    GLIBC_TUNABLES=$t timeout 100 .gl/bin/vigil-count threads 8 21 > $OUT/count-threads-$mode-r$r.txt 2>&1
    echo "== count $mode r$r: $(grep '8 threads' $OUT/count-threads-$mode-r$r.txt)"
    GLIBC_TUNABLES=$t timeout 100 .gl/bin/vigil-head bench --workload parallel-record --path vigil --path ash > $OUT/par-$mode-r$r.txt 2>&1
    echo "== bench $mode r$r ${SECONDS}s: $(grep -E '^ +(vigil|ash) rate x8/x1|record x1: vigil/ash' $OUT/par-$mode-r$r.txt | tr -s ' ' | tr '\n' ';')"
  done
done
