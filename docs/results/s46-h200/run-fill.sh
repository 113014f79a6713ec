# Session 46, on the H200, second batch: the kernel_copies tests of 191473e (release,
# --all-features; the copy kernel's arithmetic rewritten with saturating operations), then
# `vigil bench --workload bandwidth` of 1242dac's bench (191473e's library) twice: the fill
# command (vigil's clear_buffer, raw ash's vkCmdFillBuffer, wgpu's clear_buffer, PyTorch's
# zero_) over the same 4 GiB as the copies.
source .gl/enter.sh
cd .gl && xz -dk bin/vigil-s46b.xz bin/vigil-kc.xz && chmod +x bin/vigil-* && cd ..
timeout 120 .gl/bin/vigil-kc --test-threads=1 > $OUT/kc.txt 2>&1; echo "kernel_copies rc=$? ${SECONDS}s" >> $OUT/log.txt
for r in 1 2; do
  timeout 90 .gl/bin/vigil-s46b bench --workload bandwidth --save $OUT/fill-$r.json > $OUT/fill-$r.txt 2>&1; echo "fill-$r rc=$? ${SECONDS}s" >> $OUT/log.txt
done
cat $OUT/log.txt; tail -3 $OUT/kc.txt; grep -h -E "fill|copy command rate|rate / reference" $OUT/fill-*.txt
cd $OUT && tar -czf s46-fill.tgz *.txt *.json && rm -f *.txt *.json
