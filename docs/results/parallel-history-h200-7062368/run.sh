# Session 36, second run: does the main devices' history move parallel-record's rates?
# Alternated, three rounds: parallel-record alone; after bandwidth, draws and tier-draws
# (the full run's order) on the main devices; the same with parallel-record on fresh
# devices (VIGIL_BENCH_FRESH_PARALLEL). Then the packed suite.
cd .gl && tar -xJf bins-trial.tar.xz && tar -xJf tests.tar.xz && cd ..
V=.gl/bin/vigil-trial
SEQ="--workload bandwidth --workload draws --workload tier-draws --workload parallel-record"
for r in 1 2 3; do
  timeout 60 $V bench --workload parallel-record > $OUT/alone-r$r.txt 2>&1
  echo "== alone r$r ${SECONDS}s: $(grep -E '(vigil|ash) rate x8/x1' $OUT/alone-r$r.txt | head -2 | tr -s ' ' | tr '\n' ';')"
  timeout 90 $V bench $SEQ > $OUT/seq-r$r.txt 2>&1
  echo "== seq r$r ${SECONDS}s: $(grep -E '(vigil|ash) rate x8/x1' $OUT/seq-r$r.txt | head -2 | tr -s ' ' | tr '\n' ';')"
  VIGIL_BENCH_FRESH_PARALLEL=1 timeout 90 $V bench $SEQ > $OUT/seqfresh-r$r.txt 2>&1
  echo "== seq-fresh r$r ${SECONDS}s: $(grep -E '(vigil|ash) rate x8/x1' $OUT/seqfresh-r$r.txt | head -2 | tr -s ' ' | tr '\n' ';')"
done
PER=100 timeout $((590-SECONDS)) .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -2 $OUT/tests.txt; grep -c "rc=0" $OUT/tests.txt; grep -v "rc=0" $OUT/tests.txt | head
cd $OUT && tar -cJf runs.tar.xz *.txt && rm -f *.txt
