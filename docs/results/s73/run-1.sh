# Session 73's first device run: session 72's owed run 3 (why lifetime.rs's newest test
# counted one native object more in its second round, and the fuzzer with `glslc`
# carried) plus the suite packed at 006ca30, which holds f2a9d9d's corrected test.
# Binaries: `.gl/bin/lifetime-diag.sxz` (lifetime.rs at 3bef1fb's library, printing live,
# pooled and per-kind counts each round; the print is not committed), the fuzzer of
# 3bef1fb's library, `.gl/tests.tar.xz` (the suite at 006ca30). Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s73/run-1.sh > $OUT/run-1.log 2>&1; tail -40 $OUT/run-1.log
set -u
limit=${LIMIT:-540}
export PATH=$PWD/.gl/bin:$PATH
for b in spirv-val vigil-fuzz lifetime-diag; do xz -dc .gl/bin/$b.sxz > .gl/bin/$b; chmod +x .gl/bin/$b; done
(cd .gl && tar -xJf tests.tar.xz)
which glslc spirv-val
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E 'Model name|^CPU\(s\)'
for i in 1 2; do
  RUST_BACKTRACE=0 timeout 60 .gl/bin/lifetime-diag --test-threads 1 --nocapture > $OUT/lifetime-diag-$i.txt 2>&1
  grep -E "DIAG|panicked|left|right|test result" $OUT/lifetime-diag-$i.txt | sed 's/ objects .*("buffers", \([0-9]*\))]/ buffers \1/'
done
OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 220 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $OUT/tests.txt
echo "executables exited 0: $(grep -c ': rc=0 ' $OUT/tests.txt) of $(grep -c ': rc=' $OUT/tests.txt)"
grep ': rc=' $OUT/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
grep -E 'FAILED|panicked' $OUT/tests.txt | head -8
xz -9 $OUT/tests.txt
timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-16518} --seeds $(( (limit - SECONDS - 15) * 2 )) --calls 5000 --jobs 14 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s"
grep FUZZ-TOTAL $OUT/fuzz.txt
grep FUZZ-RESULT $OUT/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
grep FUZZ-RESULT $OUT/fuzz.txt | head -1; grep FUZZ-RESULT $OUT/fuzz.txt | tail -1
xz -9 $OUT/fuzz.txt
echo "done ${SECONDS}s"
