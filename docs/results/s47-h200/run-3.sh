# Session 47, third machine session on the H200: copies below 1 MiB through the kernel.
# vigil-s47k is a53b510's bench with the kernel's threshold (KERNEL_COPY_MIN) at 64 KiB
# instead of 1 MiB; `bandwidth` copies its 4 GiB in pieces of 64 KiB to 1 MiB
# (VIGIL_BENCH_COPY_PIECE_KIB), vigil by kernel, raw ash and wgpu by the copy command.
source .gl/enter.sh
cd .gl && xz -dk bin/vigil-s47k.xz && chmod +x bin/vigil-* && cd ..
for k in 64 128 256 512 1024; do
  VIGIL_BENCH_COPY_PIECE_KIB=$k timeout 100 .gl/bin/vigil-s47k bench --workload bandwidth --save $OUT/piece-$k.json > $OUT/piece-$k.txt 2>&1; echo "piece-$k rc=$? ${SECONDS}s" >> $OUT/pieces-log.txt
  echo "== $k KiB"; grep -h -E "copy command (vigil|ash|wgpu) |copy command: vigil/ash" $OUT/piece-$k.txt
done
cat $OUT/pieces-log.txt
cd $OUT && tar -czf s47-3.tgz *.txt *.json && rm -f *.txt *.json
