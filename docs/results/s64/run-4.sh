# Session 64's fourth device run: the fuzzer built at 55bd91e with the fuzzer's own fix of
# its expectation for a replaced volume attachment (run 3's four findings), first on run
# 3's four seeds, then on seeds no run had used, from SEED (default 10919), with the time
# left. glslc and spirv-val carried. Outputs into $OUT/run-4.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s64/run-4.sh > $OUT/run-4.log 2>&1; tail -12 $OUT/run-4.log
set -u
limit=${LIMIT:-300}
cd .gl && for b in vigil-fuzz spirv-val; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-4.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
for s in 10680 10700 10748 10802; do
  timeout 60 .gl/bin/vigil-fuzz --seed $s --calls 5000 > $res/replay-$s.txt 2>&1
  grep FUZZ-RESULT $res/replay-$s.txt
done
pack
timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-10919} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
grep FUZZ-TOTAL $res/fuzz.txt
pack
echo "done ${SECONDS}s"
