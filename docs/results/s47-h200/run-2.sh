# Session 47, second machine session on the H200: the packed test suite of the vigil crate
# (release, --all-features) and the fuzzer (96 seeds x 5,000 calls) at the kept version,
# then five rounds of `draws`, `dispatches` and `tier-draws`, one process each, the three
# builds in an order rotated by one place per round: vigil-s47a (a53b510, every command
# recorded natively at once), vigil-s47c (binds, immediate data, draws and dispatches
# recorded natively in batches of 256) and vigil-s47d (the same in batches of 4,096).
source .gl/enter.sh
cd .gl && tar -xJf tests.tar.xz && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/tests-2.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests-2.txt
tail -1 $OUT/tests-2.txt; grep -c "rc=0 " $OUT/tests-2.txt; grep -v "rc=0 " $OUT/tests-2.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 5100 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz-2.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz-2.txt
tail -2 $OUT/fuzz-2.txt
order="a c d"
for round in 1 2 3 4 5; do
  for v in $order; do
    timeout 60 .gl/bin/vigil-s47$v bench --workload draws --workload dispatches --workload tier-draws --save $OUT/r2-$round-$v.json > $OUT/r2-$round-$v.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/r2-$round-$v.txt
    echo "== round $round $v: $(grep -E '^    encode: vigil/ash' $OUT/r2-$round-$v.txt | tr -s ' ' | cut -d' ' -f4 | tr '\n' ' ')"
  done
  set -- $order; order="$2 $3 $1"
done
cd $OUT && tar -czf s47-2.tgz *.txt *.json && rm -f *.txt *.json
