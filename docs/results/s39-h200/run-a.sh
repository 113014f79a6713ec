# Session 39, experiment A: software prefetch of the staging chunk ahead of continuing
# writes (VIGIL_PREFETCH_AHEAD bytes; 0 = off), alternated; bandwidth with raw ash's copy
# kernel declaring storage buffers Restrict (off, read-only ones, all), alternated.
for r in 1 2 3; do for a in 0 512 2048; do
  VIGIL_PREFETCH_AHEAD=$a timeout 90 .gl/bin/vigil-exp bench --workload writes --path vigil --path ash > $OUT/writes-a$a-r$r.txt 2>&1
  echo "== writes ahead=$a r$r ${SECONDS}s: $(grep -E 'vigil ns per write call|total: vigil/ash' $OUT/writes-a$a-r$r.txt | head -2 | tr -s ' ' | tr '\n' ';')"
done; done
for r in 1 2; do for m in off read all; do
  VIGIL_BENCH_RAW_RESTRICT=$m timeout 90 .gl/bin/vigil-exp bench --workload bandwidth --path ash > $OUT/bw-$m-r$r.txt 2>&1
  echo "== bandwidth restrict=$m r$r ${SECONDS}s: $(grep -iE 'reference|GB/s' $OUT/bw-$m-r$r.txt | head -4 | tr -s ' ' | tr '\n' ';')"
done; done
