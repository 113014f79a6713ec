# Session 43: is the 64-byte staged write slower after churn (as in the full run's order)?
# writes alone, then churn followed by writes, in one process each, alternated, vigil and
# raw ash paths. Run from the checkout after `source .gl/enter.sh`; outputs go to $OUT.
for r in 1 2 3; do
  for set in "writes" "churn writes"; do
    args=""; for w in $set; do args="$args --workload $w"; done
    name=$(echo $set | tr ' ' '_')
    timeout 150 .gl/bin/vigil-head bench $args --path vigil --path ash > $OUT/writes-$name-r$r.txt 2>&1
    echo "== $name r$r ${SECONDS}s: $(grep -E 'vigil ns per write call' $OUT/writes-$name-r$r.txt | tr -s ' ' | tr '\n' ';')"
  done
done
