# Session 50, run 3: the bench of cd2005f (base: the library as session 49 left it)
# against the bench of f27eabf (s50: library of 95de1b2), alternated with the order
# rotating each round: draws, dispatches and parallel-record, vigil and raw ash paths, 41
# paired repetitions each. Everything comes back in one archive.
rounds=${ROUNDS:-4}
cd .gl && for b in base s50; do xz -dkf bin/vigil-$b.xz; chmod +x bin/vigil-$b; done && cd ..
mkdir -p /tmp/out
for r in $(seq 1 $rounds); do
  order="base s50"; [ $((r % 2)) = 0 ] && order="s50 base"
  for b in $order; do
    f=/tmp/out/$b-r$r.txt
    timeout 120 .gl/bin/vigil-$b bench --workload draws --workload dispatches --workload parallel-record --path vigil --path ash > $f 2>&1
    echo "== $b r$r ${SECONDS}s: $(grep -E 'encode: vigil/ash|submit: vigil/ash|vigil rate x8/x1|record x1: vigil/ash' $f | sed 's/ \{2,\}/ /g' | tr '\n' ';')" | tee -a /tmp/out/summary.txt
  done
done
cp /tmp/out/summary.txt $OUT/; tar -cJf $OUT/run-3.tar.xz -C /tmp/out .
