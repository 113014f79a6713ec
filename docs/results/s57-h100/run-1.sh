# Session 57's device run: a full bench of 634de3e (.gl/bin/vigil-s57.sxz, built by
# ../bench-build.sh), then the packed suite of the same commit (.gl/tests.tar.xz) with its
# per-executable lines, then the fuzzer of the same commit (.gl/bin/vigil-fuzz.sxz), 96
# seeds from SEED (default 7796). First, how fast the host runs vigil's own recording code
# with no driver under it: `vigil-count time` (test backend) of the guard's draw and
# dispatch workloads and of the draw's four calls one kind at a time (vigil-count-calls),
# pinned to CPU 15 as the bench's timed threads are. Each part's output lands in $OUT as the part ends, and a
# part starts only if LIMIT (seconds, default 570) leaves it room. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s57-h100/run-1.sh > $OUT/run-1.log 2>&1; tail -3 $OUT/run-1.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-s57 vigil-fuzz vigil-count vigil-count-calls; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{
  for w in draw dispatch; do taskset -c 15 .gl/bin/vigil-count time $w 21; done
  for w in draw.set_bind_group draw.set_vertex_buffer draw.set_index_buffer draw.draw_indexed draw.group_draw; do
    taskset -c 15 .gl/bin/vigil-count-calls time $w 21 2>&1
  done
} > $OUT/count-time.txt 2>&1
if room 210; then
  timeout 210 .gl/bin/vigil-s57 bench --save $OUT/full.json > $OUT/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $OUT/full.txt
fi
if room 130; then
  tar -xJf .gl/tests.tar.xz -C .gl
  # (OUT unset for run-all.sh: its own tests.log would be one file more than come back.)
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 60)) .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $OUT/tests.txt
fi
if room 40; then
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-7796} --seeds 96 --calls 5000 --jobs 14 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $OUT/fuzz.txt
fi
echo "done ${SECONDS}s"
