# Session 48, fourth machine session on the H200: what one lone copy costs on the GPU.
# `bandwidth` with VIGIL_BENCH_COPY_COUNT=1 (the bench after 50fc4ce, library d34251f):
# the copy-command row is then one copy of the given size at the start of the first buffer
# pair, timed by timestamps around it in a submission of its own, 41 paired repetitions.
# vigil copies 64 KiB and more by its kernel, raw ash and wgpu by the copy command; at
# 32 KiB every path takes the copy command.
source .gl/enter.sh
cd .gl && xz -dkf bin/vigil-s48c.xz && chmod +x bin/vigil-s48c && cd ..
for k in 32 64 128 256 1024 16384; do
  VIGIL_BENCH_COPY_COUNT=1 VIGIL_BENCH_COPY_PIECE_KIB=$k timeout 120 .gl/bin/vigil-s48c bench --workload bandwidth --save $OUT/lone-$k.json > $OUT/lone-$k.txt 2>&1; echo "lone-$k rc=$? ${SECONDS}s"
  grep -h -E "(copy|fill) command (vigil|ash|wgpu) |(copy|fill) command: vigil/ash" $OUT/lone-$k.txt
done 2>&1 | tee $OUT/lone-log.txt
cd $OUT && tar -czf s48-4.tgz *.txt *.json && rm -f *.txt *.json
