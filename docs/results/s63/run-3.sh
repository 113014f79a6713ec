# Session 63's third device run: the suite of vigil, vigil-vulkan and vigil-graph
# (all features, validation layer on) built at 4ef4dc3 (run 2's, pointer pipeline caches,
# FLOAT32_FILTERABLE, and one-layer compressed copies' image height), then the fuzzer built
# at the same commit with the time left, from SEED (default 10247). Every output goes into
# $OUT/run-3.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s63/run-3.sh > $OUT/run-3.log 2>&1; tail -14 $OUT/run-3.log
set -u
limit=${LIMIT:-400}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && tar -xJf tests.tar.xz && for b in vigil-fuzz; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-3.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 220 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
grep -o "[0-9]* passed; [0-9]* failed" $res/tests.txt | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
grep -E 'FAILED|panicked' $res/tests.txt | head -8
grep -E '^formats|^rules_render' $res/tests.txt
pack
if room 60; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-10247} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
