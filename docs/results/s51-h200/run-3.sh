# Session 51, run 3: the bench of cd2005f (base: the library as session 49 left it)
# against the session's (s51: sessions 50 and 51), alternated with the order rotating
# each round: draws, dispatches and parallel-record, vigil and raw ash, 41 paired
# repetitions each. What sessions 50 and 51 did to the recording path is timed only here.
rounds=${ROUNDS:-4}
cd .gl && tar -xJf tools/tools.tar.xz && for b in base s51; do xz -dkf bin/vigil-$b.xz; chmod +x bin/vigil-$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p /tmp/out
for r in $(seq 1 $rounds); do
  order="base s51"; [ $((r % 2)) = 0 ] && order="s51 base"
  for b in $order; do
    f=/tmp/out/$b-r$r.txt
    timeout 120 .gl/bin/vigil-$b bench --workload draws --workload dispatches --workload parallel-record --path vigil --path ash > $f 2>&1
    echo "== $b r$r ${SECONDS}s: $(grep -E 'encode: vigil/ash|submit: vigil/ash|vigil rate x8/x1|record x1: vigil/ash' $f | sed 's/ \{2,\}/ /g' | tr '\n' ';')" | tee -a /tmp/out/summary.txt
  done
done
cp /tmp/out/summary.txt $OUT/; tar -cJf $OUT/run-3.tar.xz -C /tmp/out .
