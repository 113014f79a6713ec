# Session 64's fourth device run, binaries at 2749885 (the session's library; the fuzzer with
# its own fix of the expectation for a replaced volume attachment): run 3's four fuzzer
# seeds replayed, a full bench, the suite (built at 55bd91e, the same library; without the
# 16 executables that run on the test backend only, rules_* among them, so the carried tree
# stays within its 64 MiB: they ran in run 3 and in CI), then the
# fuzzer on seeds no run had used, from SEED (default 10919), with the time left. glslc
# and spirv-val carried. Outputs into $OUT/run-4.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s64/run-4.sh > $OUT/run-4.log 2>&1; tail -16 $OUT/run-4.log
set -u
limit=${LIMIT:-560}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz vigil-s64b spirv-val; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-4.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
for s in 10680 10700 10748 10802; do
  timeout 60 .gl/bin/vigil-fuzz --seed $s --calls 5000 > $res/replay-$s.txt 2>&1
  grep FUZZ-RESULT $res/replay-$s.txt
done
pack
if room 300; then
  timeout 290 .gl/bin/vigil-s64b bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 5)) .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
if room 40; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-10919} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
