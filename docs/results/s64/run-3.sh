# Session 64's third device run: the suite of vigil, vigil-vulkan and vigil-graph (all
# features, validation layer on) built at 55bd91e (1D and 3D textures, passes rendering
# into a volume's slice, a recording using one alias of shared bytes between activations),
# then the fuzzer built at the same commit with the time left, from SEED (default 10631).
# glslc and spirv-val carried (docs/results/gpu-tools.sh). Every output goes into
# $OUT/run-3.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s64/run-3.sh > $OUT/run-3.log 2>&1; tail -16 $OUT/run-3.log
set -u
limit=${LIMIT:-430}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz spirv-val; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-3.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
glslc --version | head -1 | tee -a $res/machine.txt; spirv-val --version | head -1 | tee -a $res/machine.txt
OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 220 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
grep -o "[0-9]* passed; [0-9]* failed" $res/tests.txt | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
grep -E 'FAILED|panicked' $res/tests.txt | head -8
grep -E '^dimensions|^rules_placement|^placement' $res/tests.txt
pack
if room 60; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-10631} --seeds ${SEEDS:-288} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
