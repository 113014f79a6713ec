# Session 46, on the H200, third batch: `vigil bench --workload bandwidth` of the bench as
# committed (the fill command timed last, over buffers of its own; PyTorch's zero_ of a
# tensor of its own), twice.
source .gl/enter.sh
cd .gl && xz -dk bin/vigil-s46c.xz && chmod +x bin/vigil-* && cd ..
for r in 1 2; do
  timeout 90 .gl/bin/vigil-s46c bench --workload bandwidth --save $OUT/last-$r.json > $OUT/last-$r.txt 2>&1; echo "last-$r rc=$? ${SECONDS}s" >> $OUT/log.txt
done
cat $OUT/log.txt; grep -h -E "GB/s|fill command:|rate / reference" $OUT/last-*.txt
cd $OUT && tar -czf s46-last.tgz *.txt *.json && rm -f *.txt *.json
