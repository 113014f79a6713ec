# Session 46, on the H200: the packed test suite (release, --all-features, built at the
# commit named in README.md here), the fuzzer (96 seeds x 5,000 calls), then `vigil bench
# --workload bandwidth` three times: twice as is (512 MiB buffers), once with 16 MiB
# buffers (`VIGIL_BENCH_CHUNK_MIB=16`: 256 copies of 16 MiB each). vigil's copy command now
# runs its copy kernel on this discrete GPU; raw ash's and wgpu's stay vkCmdCopyBuffer.
source .gl/enter.sh
cd .gl && tar -xJf tests.tar.xz && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/tests.txt
tail -1 $OUT/tests.txt; grep -c "rc=0 " $OUT/tests.txt; grep -v "rc=0 " $OUT/tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 4600 --seeds 96 --calls 5000 --jobs 8 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz.txt
tail -2 $OUT/fuzz.txt
for r in 1 2; do
  timeout 90 .gl/bin/vigil-s46 bench --workload bandwidth --save $OUT/bw-$r.json > $OUT/bw-$r.txt 2>&1; echo "bw-$r rc=$? ${SECONDS}s" >> $OUT/log.txt
done
VIGIL_BENCH_CHUNK_MIB=16 timeout 90 .gl/bin/vigil-s46 bench --workload bandwidth --save $OUT/bw-16.json > $OUT/bw-16.txt 2>&1; echo "bw-16 rc=$? ${SECONDS}s" >> $OUT/log.txt
cat $OUT/log.txt; grep -h -E "GB/s copied|copy command|rate / reference" $OUT/bw-*.txt
cd $OUT && tar -czf s46-run.tgz *.txt *.json && rm -f *.txt *.json
