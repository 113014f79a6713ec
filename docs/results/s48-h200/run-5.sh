# Session 48, fifth machine session on the H200: a policy where a copy of 64 KiB to 1 MiB
# takes the kernel only right after another copy of at least 64 KiB (vigil-pol), against
# the 64 KiB threshold for every copy (vigil-s48c; both with the bench of f16f363).
# Lone copies (VIGIL_BENCH_COPY_COUNT=1) with vigil-pol, then batches of 64 KiB and
# 128 KiB copies (65,536 and 32,768 in one command buffer), the two builds alternated.
source .gl/enter.sh
cd .gl && for b in vigil-pol vigil-s48c; do xz -dkf bin/$b.xz; chmod +x bin/$b; done; cd ..
for k in 64 128 1024; do
  VIGIL_BENCH_COPY_COUNT=1 VIGIL_BENCH_COPY_PIECE_KIB=$k timeout 120 .gl/bin/vigil-pol bench --workload bandwidth --save $OUT/lone-pol-$k.json > $OUT/lone-pol-$k.txt 2>&1; echo "lone-pol-$k rc=$? ${SECONDS}s"
  grep -h -E "copy command (vigil|ash) |copy command: vigil/ash" $OUT/lone-pol-$k.txt
done 2>&1 | tee $OUT/pol-log.txt
for run in s48c-64 pol-64 pol-128 s48c-128; do
  b=${run%-*}; k=${run#*-}
  VIGIL_BENCH_COPY_PIECE_KIB=$k timeout 120 .gl/bin/vigil-$b bench --workload bandwidth --save $OUT/batch-$run.json > $OUT/batch-$run.txt 2>&1; echo "batch-$run rc=$? ${SECONDS}s"
  grep -h -E "copy command (vigil|ash) |copy command: vigil/ash" $OUT/batch-$run.txt
done 2>&1 | tee -a $OUT/pol-log.txt
cd $OUT && tar -czf s48-5.tgz *.txt *.json && rm -f *.txt *.json
