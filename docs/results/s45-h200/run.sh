# Session 45, on the H200: the packed test suite of the vigil crate (release,
# --all-features), the fuzzer (96 seeds x 5,000 calls), then four alternated rounds of
# `dispatches-indirect-written` and `dispatches-indirect`: vigil-s45a (arguments written
# earlier in the recording checked in place, as before) and vigil-s45b (checked in front
# of the reading pass), one process each.
cd .gl && tar -xJf tests.tar.xz && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -1 $OUT/tests.txt; grep -c "rc=0 " $OUT/tests.txt; grep -v "rc=0 " $OUT/tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 4500 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz.txt
tail -2 $OUT/fuzz.txt
for round in 1 2 3 4; do
  for v in a b; do
    timeout 90 .gl/bin/vigil-s45$v bench --workload dispatches-indirect-written --workload dispatches-indirect --save $OUT/ab-$round-$v.json > $OUT/ab-$round-$v.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/ab-$round-$v.txt
    echo "== round $round $v"; grep -A16 "^dispatches" $OUT/ab-$round-$v.txt | grep "^dispatches\|: vigil/ash"
  done
done
cd $OUT && tar -czf s45.tgz *.txt *.json && rm -f *.txt *.json
