# Session 48, last machine session on the H200, at 3b4d647 (copies below 1 MiB take the
# kernel only in a batch): the packed test suite of the vigil crate (release,
# --all-features; glslc, spirv-val, spirv-cross carried), then the fuzzer (96 seeds x 5,000
# calls).
cd .gl && tar -xJf tests.tar.xz && xz -dkf bin/vigil-fuzz.xz && chmod +x bin/vigil-fuzz && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 240 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -1 $OUT/tests.txt; grep -c "rc=0 " $OUT/tests.txt; grep -v "rc=0 " $OUT/tests.txt | head -20; grep kernel_copies $OUT/tests.txt
timeout 120 .gl/bin/vigil-fuzz --seed 4900 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz.txt
tail -2 $OUT/fuzz.txt
