# Session 47, fifth machine session on the H200, at the final commit (copies by kernel from
# 4 KiB): the packed test suite of the vigil crate (release, --all-features), the fuzzer
# (96 seeds x 5,000 calls; on this GPU its copies of 4 KiB and more in device memory now
# go through the kernel without the seam), `bandwidth` at its default sizes, and (the
# bench of the next commit, which fills in pieces too) in pieces of 4 and 64 KiB, to see
# what a small fill command costs.
source .gl/enter.sh
cd .gl && tar -xJf tests.tar.xz && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
PER=100 timeout 300 .gl/tests/run-all.sh > $OUT/final-tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> $OUT/final-tests.txt
tail -1 $OUT/final-tests.txt; grep -c "rc=0 " $OUT/final-tests.txt; grep -v "rc=0 " $OUT/final-tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 5300 --seeds 96 --calls 5000 --jobs 8 > $OUT/final-fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/final-fuzz.txt
tail -2 $OUT/final-fuzz.txt; grep -v 'failed=0\|health=ok\|^seed' $OUT/final-fuzz.txt | head
timeout 100 .gl/bin/vigil-s47f bench --workload bandwidth --save $OUT/final-bw.json > $OUT/final-bw.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/final-bw.txt
grep -E "copy command (vigil|ash) |: vigil/ash|rate / reference|GB/s" $OUT/final-bw.txt
for k in 4 64; do
  VIGIL_BENCH_COPY_PIECE_KIB=$k timeout 100 .gl/bin/vigil-s47f bench --workload bandwidth --save $OUT/fill-$k.json > $OUT/fill-$k.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/fill-$k.txt
  echo "== $k KiB"; grep -E "(fill|copy) command (vigil|ash|wgpu) |(fill|copy) command: vigil/ash" $OUT/fill-$k.txt
done
cd $OUT && tar -czf s47-5.tgz *.txt *.json && rm -f *.txt *.json
