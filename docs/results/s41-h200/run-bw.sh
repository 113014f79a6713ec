# Session 41: raw ash with and without robustBufferAccess, kernels checked as vigil's or not; run from the checkout after `source .gl/enter.sh`.
for r in 1 2; do
for cfg in "on checked" "off checked" "off unchecked" "on unchecked"; do
  set -- $cfg
  k=""; [ $2 = unchecked ] && k=unchecked
  VIGIL_BENCH_RAW_ROBUST=$1 VIGIL_BENCH_RAW_KERNELS=$k timeout 150 .gl/bin/vigil-rba bench --workload bandwidth --path vigil --path ash --path reference > $OUT/bw-$1-$2-r$r.txt 2>&1
  echo "== rba=$1 $2 r$r ${SECONDS}s"; grep -E 'GB/s|vigil/ash|reference' $OUT/bw-$1-$2-r$r.txt | head -12
done; done
