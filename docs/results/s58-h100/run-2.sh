# Session 58's second device run, at 5a130d3 (executing a bundle meets its distinct
# resources): as run-1.sh, with the draws from a bundle in a frame of their own counted
# too (`draw.bundle_frame`), DRAWS (default 4) runs of the draws workload alone, and the
# fuzzer from SEED (default 8400; run 1's fuzz output did not come back). Every output
# goes into one archive, $OUT/run-2.tar.xz (a run brings back at most eight files). Carry
# [".gl"]:
#   source .gl/enter.sh; bash docs/results/s58-h100/run-2.sh > $OUT/run-2.log 2>&1; tail -12 $OUT/run-2.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-s58b vigil-fuzz vigil-count vigil-count-calls; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
{
  taskset -c 15 .gl/bin/vigil-count time draw 21
  for w in draw.set_bind_group draw.set_vertex_buffer draw.set_index_buffer draw.draw_indexed draw.group_draw draw.bundle draw.bundle_frame; do
    taskset -c 15 .gl/bin/vigil-count-calls time $w 21 2>&1
  done
} > $res/count-time.txt 2>&1
if room 230; then
  timeout 220 .gl/bin/vigil-s58b bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
for k in $(seq 1 ${DRAWS:-4}); do
  if room 200; then
    timeout 60 .gl/bin/vigil-s58b bench --workload draws --save $res/draws-$k.json > $res/draws-$k.txt 2>&1; echo "draws $k rc=$? ${SECONDS}s" | tee -a $res/draws-$k.txt
  fi
done
pack
if room 130; then
  tar -xJf .gl/tests.tar.xz -C .gl
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 60)) .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep -o "[0-9]* passed; [0-9]* failed" $res/tests.txt | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
fi
pack
if room 40; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-8400} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
