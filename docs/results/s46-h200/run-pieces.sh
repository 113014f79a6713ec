# Session 46, on the H200, fifth batch: the copy command in pieces (bench of the commit
# that added VIGIL_BENCH_COPY_PIECE_KIB): 4 GiB copied in pieces of 4 MiB, 1 MiB and
# 256 KiB. vigil copies by kernel from 1 MiB (the 256 KiB run is the copy command on every
# path), raw ash and wgpu by the copy command.
source .gl/enter.sh
cd .gl && xz -dk bin/vigil-s46d.xz && chmod +x bin/vigil-* && cd ..
for k in 4096 1024 256; do
  VIGIL_BENCH_COPY_PIECE_KIB=$k timeout 120 .gl/bin/vigil-s46d bench --workload bandwidth --save $OUT/piece-$k.json > $OUT/piece-$k.txt 2>&1; echo "piece-$k rc=$? ${SECONDS}s" >> $OUT/log.txt
done
cat $OUT/log.txt; grep -h -E "copy command (vigil|ash|wgpu)|copy command: vigil|copy command rate" $OUT/piece-*.txt
cd $OUT && tar -czf s46-pieces.tgz *.txt *.json && rm -f *.txt *.json
