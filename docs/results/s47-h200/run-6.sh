# Session 47, sixth machine session on the H200, at 136c87d (a buffer that fits a window
# is bound whole by one group per recording and role): the kernel_copies tests (release,
# --all-features; six, one new), the fuzzer (96 seeds x 5,000 calls), and `bandwidth` at
# its default sizes and in 4 KiB pieces (outputs compared across paths).
source .gl/enter.sh
cd .gl && xz -dk bin/*.xz && chmod +x bin/* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
timeout 120 .gl/bin/kernel_copies > $OUT/g-kernel-copies.txt 2>&1; echo "kernel_copies rc=$? ${SECONDS}s" >> $OUT/g-kernel-copies.txt
tail -3 $OUT/g-kernel-copies.txt
timeout 120 .gl/bin/vigil-fuzz --seed 5700 --seeds 96 --calls 5000 --jobs 8 > $OUT/g-fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/g-fuzz.txt
tail -2 $OUT/g-fuzz.txt; grep -v 'failed=0\|health=ok\|^seed' $OUT/g-fuzz.txt | head
timeout 100 .gl/bin/vigil-s47g bench --workload bandwidth --save $OUT/g-bw.json > $OUT/g-bw.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/g-bw.txt
grep -E "outputs|copy command (vigil|ash) |: vigil/ash|rate / reference" $OUT/g-bw.txt
VIGIL_BENCH_COPY_PIECE_KIB=4 timeout 100 .gl/bin/vigil-s47g bench --workload bandwidth --save $OUT/g-bw-4.json > $OUT/g-bw-4.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/g-bw-4.txt
grep -E "outputs|copy command (vigil|ash) |copy command: vigil/ash" $OUT/g-bw-4.txt
cd $OUT && tar -czf s47-6.tgz *.txt *.json && rm -f *.txt *.json
