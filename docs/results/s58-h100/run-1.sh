# Session 58's device run, at aae7031 (render bundles): first how fast the host runs
# vigil's own recording with no driver under it (`vigil-count time` of the guard's draw,
# `vigil-count-calls time` of a draw's four calls and of a draw executed from a bundle,
# test backend, pinned to CPU 15 as the bench's timed threads are); then a full bench of
# the same commit (.gl/bin/vigil-s58.sxz, built by ../bench-build.sh), whose draws
# workload now has the vigil-bundle path; then DRAWS (default 3) more runs of the draws
# workload alone; then the packed suite (.gl/tests.tar.xz) with its per-executable lines;
# then the fuzzer (.gl/bin/vigil-fuzz.sxz) from SEED (default 8180), as many of SEEDS
# (default 192) as the time left allows. Each part's output lands in $OUT as the part
# ends, and a part starts only if LIMIT (seconds, default 570) leaves it room. Carry
# [".gl"]:
#   source .gl/enter.sh; bash docs/results/s58-h100/run-1.sh > $OUT/run-1.log 2>&1; tail -3 $OUT/run-1.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-s58 vigil-fuzz vigil-count vigil-count-calls; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{
  taskset -c 15 .gl/bin/vigil-count time draw 21
  for w in draw.set_bind_group draw.set_vertex_buffer draw.set_index_buffer draw.draw_indexed draw.group_draw draw.bundle; do
    taskset -c 15 .gl/bin/vigil-count-calls time $w 21 2>&1
  done
} > $OUT/count-time.txt 2>&1
if room 230; then
  timeout 220 .gl/bin/vigil-s58 bench --save $OUT/full.json > $OUT/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $OUT/full.txt
fi
for k in $(seq 1 ${DRAWS:-3}); do
  if room 200; then
    timeout 60 .gl/bin/vigil-s58 bench --workload draws --save $OUT/draws-$k.json > $OUT/draws-$k.txt 2>&1; echo "draws $k rc=$? ${SECONDS}s" | tee -a $OUT/draws-$k.txt
  fi
done
if room 130; then
  tar -xJf .gl/tests.tar.xz -C .gl
  # (OUT unset for run-all.sh: its own tests.log would be one file more than come back.)
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 60)) .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $OUT/tests.txt
fi
if room 40; then
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-8180} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $OUT/fuzz.txt
fi
echo "done ${SECONDS}s"
