# Session 43: does the draw gap follow the number of bind groups cycled? draws with 10
# and with 1,000 groups (VIGIL_BENCH_GROUPS), alternated, vigil and raw ash paths; then
# vigil's own code over the test backend (vigil-count time draw). Run from the checkout
# after `source .gl/enter.sh`; outputs go to $OUT.
for r in 1 2; do
  for g in 10 1000; do
    VIGIL_BENCH_GROUPS=$g timeout 120 .gl/bin/vigil-head bench --workload draws --path vigil --path ash > $OUT/draws-g$g-r$r.txt 2>&1
    echo "== groups $g r$r ${SECONDS}s: $(grep -E 'encode: vigil/ash|submit: vigil/ash' $OUT/draws-g$g-r$r.txt | tr -s ' ' | tr '\n' ';')"
  done
done
taskset -c 15 timeout 120 .gl/bin/vigil-count time draw 21 > $OUT/count-time-draw.txt 2>&1; cat $OUT/count-time-draw.txt
