# Session 48, third machine session on the H200: copies by kernel whose groups are shared
# per buffer, role and window size, bound at dynamic offsets (the working tree after
# 50fc4ce), against d34251f's library, which makes two groups per copy.
# 1. CPU time of recording copies (kcbench-main.rs of results/s47-h200, built against each
#    library with test-seams; the seam arms the kernel from 16 bytes or puts it out of
#    reach), builds alternated, three rounds.
# 2. GPU time per copy: `bandwidth` in 64 KiB pieces (65,536 copies by kernel in one
#    command buffer on vigil's path), vigil-s48 (d34251f) and vigil-grp (new) alternated,
#    two rounds.
source .gl/enter.sh
cd .gl && for b in kcbench-old kcbench-new vigil-s48 vigil-grp; do xz -dkf bin/$b.xz; chmod +x bin/$b; done; cd ..
for r in 1 2 3; do
  order="old new"; [ $r = 2 ] && order="new old"
  for b in $order; do
    for a in "10000 4096" "2000 65536" "200 1048576"; do
      echo "== $b r$r $a"; timeout 60 .gl/bin/kcbench-$b $a 2>&1 | grep -v '^device'
    done
  done
done 2>&1 | tee $OUT/kcbench.txt
for r in 1 2; do
  order="s48 grp"; [ $r = 2 ] && order="grp s48"
  for b in $order; do
    VIGIL_BENCH_COPY_PIECE_KIB=64 timeout 120 .gl/bin/vigil-$b bench --workload bandwidth --save $OUT/piece64-$b-r$r.json > $OUT/piece64-$b-r$r.txt 2>&1; echo "piece64-$b-r$r rc=$? ${SECONDS}s"
    grep -h -E "copy command (vigil|ash) |copy command: vigil/ash" $OUT/piece64-$b-r$r.txt
  done
done 2>&1 | tee $OUT/piece-log.txt
cd $OUT && tar -czf s48-3.tgz *.txt *.json && rm -f *.txt *.json
