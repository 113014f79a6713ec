# Session 58's third device run, at 7128ea8 (bundles note their acceleration structures;
# executions after a heap read scope the bundles' textures): the packed suite
# (.gl/tests.tar.xz) and the fuzzer (.gl/bin/vigil-fuzz.sxz) from SEED (default 8600), as
# many of SEEDS (default 256) as the time left allows. Outputs in $OUT/run-3.tar.xz. Carry
# [".gl"]:
#   source .gl/enter.sh; bash docs/results/s58-h100/run-3.sh > $OUT/run-3.log 2>&1; tail -8 $OUT/run-3.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && xz -dc bin/vigil-fuzz.sxz > bin/vigil-fuzz && chmod +x bin/vigil-fuzz && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-3.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if room 130; then
  tar -xJf .gl/tests.tar.xz -C .gl
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 60)) .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep -o "[0-9]* passed; [0-9]* failed" $res/tests.txt | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
fi
pack
if room 40; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-8600} --seeds ${SEEDS:-256} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
