# Session 72's second device run: the suite and the full bench again, now with `glslc`
# carried (run 1 packed `.gl` by results/s71/README.md, whose steps left out
# results/gpu-tools.sh, so the GPU-pointer tier's pipelines were refused for want of
# `glslc` and the bench stopped at tier-draws). Same binaries as run 1 (3bef1fb's library,
# 4a765b4's bench). Outputs into $OUT/run-2.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=420 bash docs/results/s72/run-2.sh > $OUT/run-2.log 2>&1; tail -30 $OUT/run-2.log
set -u
limit=${LIMIT:-420}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in spirv-val vigil-s71; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
which glslc spirv-val
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)|L1i|L1d|L2|L3' | tee -a $res/machine.txt
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 200 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
if room 200; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-s71 bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
  grep -E 'targets met' $res/full.txt
fi
pack
echo "done ${SECONDS}s"
