# Session 72's third device run: why lifetime.rs's newest test counted one native object
# more in its second round on the H200 (run 2), and the fuzzer again now that `glslc` is
# carried (run 1's fuzzer had the pointer tier's pipelines refused for want of it).
# `.gl/bin/lifetime-diag.sxz` is lifetime.rs's test binary at 3bef1fb's library with the
# test counting `live - pooled` and printing, each round, the live and pooled native
# objects and vigil's objects by kind (a diagnostic print not committed). The suite's
# archive stays behind. Outputs into $OUT. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=200 bash docs/results/s72/run-3.sh > $OUT/run-3.log 2>&1; tail -30 $OUT/run-3.log
set -u
limit=${LIMIT:-200}
export PATH=$PWD/.gl/bin:$PATH
for b in spirv-val vigil-fuzz lifetime-diag; do xz -dc .gl/bin/$b.sxz > .gl/bin/$b; chmod +x .gl/bin/$b; done
which glslc spirv-val
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for i in 1 2; do
  RUST_BACKTRACE=0 timeout 60 .gl/bin/lifetime-diag --test-threads 1 --nocapture 2>&1 |
    grep -E "DIAG|panicked|left|right|test result" | sed 's/ objects .*("buffers", \([0-9]*\))]/ buffers \1/'
done
timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-16518} --seeds $(( (limit - SECONDS - 15) * 2 )) --calls 5000 --jobs 14 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s"
grep FUZZ-TOTAL $OUT/fuzz.txt
grep FUZZ-RESULT $OUT/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
echo "done ${SECONDS}s"
