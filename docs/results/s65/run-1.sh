# Session 65's first device run, binaries at 7e404b5 (the last commits of session 64, never
# run on a GPU: cf3beb8's 3D copies, 1cbbcfa's two slices of one volume in a pass, the 1D
# sampling test, the `volume` example's library and the shared test helpers): the suite
# (without the 18 executables that run on the test backend only, rules_* among them, so the
# carried tree stays within its 64 MiB: they run in CI), then the fuzzer on seeds no run had
# used, from SEED (default 11303), with the time left. glslc and spirv-val carried. Outputs
# into $OUT/run-1.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s65/run-1.sh > $OUT/run-1.log 2>&1; tail -16 $OUT/run-1.log
set -u
limit=${LIMIT:-560}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz spirv-val; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 60)) .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
if room 40; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-11303} --seeds ${SEEDS:-288} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
  grep -v "FUZZ-RESULT.*clean" $res/fuzz.txt | grep FUZZ-RESULT | head -8
fi
pack
echo "done ${SECONDS}s"
