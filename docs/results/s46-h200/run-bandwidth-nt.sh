# Session 46, on the H200: does SPIR-V's Nontemporal hint on raw ash's copy kernel close
# the last ~1.1% to PyTorch's copy_? Four settings of VIGIL_BENCH_RAW_NONTEMPORAL (unset,
# all, loads, stores), each a `vigil bench --workload bandwidth` run of its own (41 paired
# repetitions), in two rounds, the order rotated. Build: 727a1a5's bench.
source .gl/enter.sh
cd .gl && xz -dk bin/*.xz && chmod +x bin/vigil-* && cd ..
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt 2>&1
run() {
  local tag=$1 setting=$2
  if [ -n "$setting" ]; then export VIGIL_BENCH_RAW_NONTEMPORAL=$setting; else unset VIGIL_BENCH_RAW_NONTEMPORAL; fi
  timeout 120 .gl/bin/vigil-s46 bench --workload bandwidth --save $OUT/bw-$tag.json > $OUT/bw-$tag.txt 2>&1
  echo "$tag rc=$? ${SECONDS}s" >> $OUT/log.txt
  grep -E "GB/s copied|vigil/ash|rate / reference" $OUT/bw-$tag.txt | sed "s/^/$tag: /" >> $OUT/summary.txt
}
run r1-none ""; run r1-all all; run r1-loads loads; run r1-stores stores
run r2-all all; run r2-stores stores; run r2-none ""; run r2-loads loads
cat $OUT/log.txt; cat $OUT/summary.txt
cd $OUT && tar -czf s46-bw.tgz *.txt *.json && rm -f *.txt *.json
