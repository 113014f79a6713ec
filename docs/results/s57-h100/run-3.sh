# Session 57's last device run, at fc46aa8 (the hot recording calls' closures by value):
# the packed suite of that commit (.gl/tests.tar.xz) with its per-executable lines, then
# the fuzzer of that commit (.gl/bin/vigil-fuzz.sxz), SEEDS seeds (default 288) from SEED
# (default 7892). As run-1.sh: each part's output lands in $OUT as it ends, a part starts
# only if LIMIT (default 570) leaves it room. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s57-h100/run-3.sh > $OUT/run-3.log 2>&1; tail -3 $OUT/run-3.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && xz -dc bin/vigil-fuzz.sxz > bin/vigil-fuzz && chmod +x bin/vigil-fuzz && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if room 130; then
  tar -xJf .gl/tests.tar.xz -C .gl
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 60)) .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $OUT/tests.txt
fi
if room 40; then
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-7892} --seeds ${SEEDS:-288} --calls 5000 --jobs 14 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $OUT/fuzz.txt
fi
echo "done ${SECONDS}s"
