# Session 44, on the H200 (run at b0d7695, c098aa5, 661692e and 3733975) (indirect dispatch counts checked on the
# GPU): the packed test suite of the vigil crate (release, --all-features; glslc, spirv-val,
# spirv-cross carried), the fuzzer (96 seeds x 5,000 calls, with huge indirect counts in the
# stream), then `dispatches` and `dispatches-indirect` in one bench process.
cd .gl && tar -xJf tests.tar.xz && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -1 $OUT/tests.txt; grep -c "rc=0 " $OUT/tests.txt; grep -v "rc=0 " $OUT/tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 0 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz.txt
tail -2 $OUT/fuzz.txt
timeout $((570-SECONDS)) .gl/bin/vigil-s44 bench --workload dispatches --workload dispatches-indirect --save $OUT/indirect.json > $OUT/indirect.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/indirect.txt
grep -A16 "^dispatches" $OUT/indirect.txt | grep "paired\|: vigil"; grep "mesh\|indirect_checked" $OUT/tests.txt; tail -1 $OUT/indirect.txt
