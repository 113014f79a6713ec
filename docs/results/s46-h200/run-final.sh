# Session 46, on the H200, last batch at 1f358fe (vigil's kernels' pipelines in one
# KernelSlot, one track_copy for both kinds of copy): the packed test suite (release,
# --all-features), the fuzzer (96 seeds x 5,000 calls), one `vigil bench --workload
# bandwidth` of the same commit's bench.
source .gl/enter.sh
cd .gl && tar -xJf tests.tar.xz && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/final-tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/final-tests.txt
tail -1 $OUT/final-tests.txt; grep -c "rc=0 " $OUT/final-tests.txt; grep -v "rc=0 " $OUT/final-tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 4700 --seeds 96 --calls 5000 --jobs 8 > $OUT/final-fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/final-fuzz.txt
tail -2 $OUT/final-fuzz.txt
timeout 90 .gl/bin/vigil-s46e bench --workload bandwidth --save $OUT/final-bw.json > $OUT/final-bw.txt 2>&1; echo "bw rc=$? ${SECONDS}s" >> $OUT/final-bw.txt
grep -E "GB/s|rate / reference|vigil/ash" $OUT/final-bw.txt; tail -1 $OUT/final-bw.txt
cd $OUT && tar -czf s46-final.tgz *.txt *.json && rm -f *.txt *.json
