# Session 40, second machine session: `parallel-record` alone, kept tables (new) against
# b83571b (base), alternated, the order rotating each round.
for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for b in $order; do
    timeout 120 .gl/bin/vigil-$b bench --workload parallel-record --path vigil --path ash > $OUT/pr-$b-r$r.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(grep -E 'rate x8/x1|record x1: vigil/ash' $OUT/pr-$b-r$r.txt | tr -s ' ' | tr '\n' ';')"
  done
done
