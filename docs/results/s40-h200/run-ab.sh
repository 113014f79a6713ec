# Session 40: kept tables of objects met (new) against b83571b (base), alternated, the
# order rotating each round. Run from the checkout on the device machine after
# `source .gl/enter.sh`; every output goes to $OUT.
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for b in $order; do
    timeout 120 .gl/bin/vigil-$b bench --workload parallel-record --workload draws --workload dispatches \
      --path vigil --path ash > $OUT/$b-r$r.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(grep -E 'rate x8/x1|record x1: vigil/ash|encode: vigil/ash|submit: vigil/ash' $OUT/$b-r$r.txt | tr -s ' ' | tr '\n' ';')"
  done
done
