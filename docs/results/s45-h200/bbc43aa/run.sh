# Session 45, last batch on the H200 at bbc43aa (indirect draws' first instance checked on
# a device without INDIRECT_FIRST_INSTANCE, reached through a test seam): the packed suite
# of the vigil crate (release, --all-features), the fuzzer (96 seeds x 5,000 calls), and
# `dispatches-indirect-written` with `dispatches-indirect` (scratch slots of 32 bytes now).
cd .gl && tar -xJf tests.tar.xz && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -1 $OUT/tests.txt; grep -c "rc=0 " $OUT/tests.txt; grep -v "rc=0 " $OUT/tests.txt | head -20; grep "indirect_checked\|gpu_pointers" $OUT/tests.txt
timeout 120 .gl/bin/vigil-fuzz --seed 4900 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz.txt
tail -2 $OUT/fuzz.txt
timeout 90 .gl/bin/vigil-s45c bench --workload dispatches-indirect-written --workload dispatches-indirect --save $OUT/indirect.json > $OUT/indirect.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/indirect.txt
grep -A16 "^dispatches" $OUT/indirect.txt | grep "^dispatches\|: vigil/ash"
cd $OUT && tar -czf s45-draws.tgz *.txt *.json && rm -f *.txt *.json
