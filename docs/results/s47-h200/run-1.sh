# Session 47, on the H200: the packed test suite of the vigil crate (release,
# --all-features), the fuzzer (96 seeds x 5,000 calls), then alternated rounds of
# `draws`, `dispatches`, `tier-draws` and (two rounds) `parallel-record`: vigil-s47a (a53b510: every pass command
# recorded natively at once) and vigil-s47b (binds, draws and dispatches recorded natively
# in batches of 256), one process each.
source .gl/enter.sh
cd .gl && tar -xJf tests.tar.xz && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -1 $OUT/tests.txt; grep -c "rc=0 " $OUT/tests.txt; grep -v "rc=0 " $OUT/tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 4900 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz.txt
tail -2 $OUT/fuzz.txt
for round in 1 2 3 4 5; do
  for v in a b; do
    w="--workload draws --workload dispatches --workload tier-draws"
    [ $round -le 2 ] && w="$w --workload parallel-record"
    timeout 100 .gl/bin/vigil-s47$v bench $w --save $OUT/ab-$round-$v.json > $OUT/ab-$round-$v.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/ab-$round-$v.txt
    echo "== round $round $v"; grep -E "^(draws|dispatches|tier-draws|parallel-record)|: vigil/ash|: vigil/wgpu" $OUT/ab-$round-$v.txt
  done
done
cd $OUT && tar -czf s47.tgz *.txt *.json && rm -f *.txt *.json
