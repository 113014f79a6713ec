# Session 42, final batch on the H200 at the library of 7902764 (write grants without a
# locked instruction): the packed test suite of the vigil crate (release, --all-features;
# glslc, spirv-val, spirv-cross carried), the fuzzer (96 seeds x 5,000 calls), the cost of
# one membarrier (s42-h200/membarrier-cost.rs), then one full `vigil bench --save` run.
cd .gl && tar -xJf tests.tar.xz && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -1 $OUT/tests.txt; grep -c "rc=0 " $OUT/tests.txt; grep -v "rc=0 " $OUT/tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 0 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz.txt
tail -2 $OUT/fuzz.txt
timeout 30 .gl/bin/mb > $OUT/membarrier-cost.txt 2>&1; cat $OUT/membarrier-cost.txt
timeout $((570-SECONDS)) .gl/bin/vigil-final bench --save $OUT/full.json > $OUT/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/full.txt
grep -A17 "^targets" $OUT/full.txt; tail -1 $OUT/full.txt
