# Session 43: is the eight-thread rate lower after other workloads ran in the process?
# parallel-record alone, then after draws and tier-draws, then after bandwidth as well
# (the full run's order), twice each, alternated. vigil and raw ash paths. Run from the
# checkout after `source .gl/enter.sh`; outputs go to $OUT.
for r in 1 2; do
  for set in "parallel-record" "draws tier-draws parallel-record" "bandwidth draws tier-draws parallel-record"; do
    args=""; for w in $set; do args="$args --workload $w"; done
    name=$(echo $set | tr ' ' '_')
    timeout 200 .gl/bin/vigil-head bench $args --path vigil --path ash > $OUT/par-$name-r$r.txt 2>&1
    echo "== $name r$r ${SECONDS}s: $(grep -E 'rate x8/x1|record x1: vigil/ash' $OUT/par-$name-r$r.txt | tr -s ' ' | tr '\n' ';')"
  done
done
