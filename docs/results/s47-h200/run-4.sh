# Session 47, fourth machine session on the H200: copies below 64 KiB. The bench now
# takes pieces down to 4 KiB, recording at most 65,536 copy commands per run (smaller
# pieces copy the start of each buffer pair). vigil-s47k4 has the kernel's threshold at
# 4 KiB (pieces of 4 to 32 KiB: vigil by kernel, raw ash and wgpu by the copy command);
# vigil-s47k64b is the kept threshold, 64 KiB (32 KiB: the copy command on every path;
# 64 KiB: vigil by kernel).
source .gl/enter.sh
cd .gl && xz -dk bin/vigil-s47k4.xz bin/vigil-s47k64b.xz && chmod +x bin/vigil-* && cd ..
for run in k4-4 k4-8 k4-16 k4-32 k64b-32 k64b-64; do
  v=${run%-*}; k=${run#*-}
  VIGIL_BENCH_COPY_PIECE_KIB=$k timeout 100 .gl/bin/vigil-s47$v bench --workload bandwidth --save $OUT/small-$run.json > $OUT/small-$run.txt 2>&1; echo "small-$run rc=$? ${SECONDS}s" >> $OUT/small-log.txt
  echo "== $run"; grep -h -E "copy command (vigil|ash|wgpu) |copy command: vigil/ash|GB/s copied by the copy command" $OUT/small-$run.txt
done
cat $OUT/small-log.txt
cd $OUT && tar -czf s47-4.tgz *.txt *.json && rm -f *.txt *.json
