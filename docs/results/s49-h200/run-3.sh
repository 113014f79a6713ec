# Session 49, final batch on the H200 at 1311666 (library of aee2602): the packed test
# suite of the vigil crate (release, --all-features; glslc, spirv-val, spirv-cross
# carried), the fuzzer (96 seeds x 5,000 calls), then one full `vigil bench --save` run.
# Everything comes back in one archive.
cd .gl && tar -xJf tests.tar.xz && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 240 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -1 $OUT/tests.txt; grep -c "rc=0 " $OUT/tests.txt; grep -v "rc=0 " $OUT/tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 4900 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz.txt
tail -2 $OUT/fuzz.txt
timeout $((580-SECONDS)) .gl/bin/vigil-s49 bench --save $OUT/full.json > $OUT/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/full.txt
grep -A20 "^targets" $OUT/full.txt; tail -1 $OUT/full.txt
cd $OUT && tar -czf s49-full.tgz *.txt *.json && rm -f *.txt *.json
