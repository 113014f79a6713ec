# Session 70's device run, first part: the suite and the fuzzer at a543b99 (session 69's
# code, b482144's plus 20cc794's refactor, with this session's tables by registry slot
# kept for the next encoder, af45177-71d3760). The suite (release, --all-features, packed
# by gpu-pack-tests.sh), then the fuzzer on seeds no run had used, from SEED (default
# 15694), with the time left.
# Run with run-2.sh after it in the same call (the machine's start is the costly part).
# Outputs into $OUT/run-1.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=480 bash docs/results/s70/run-1.sh > $OUT/run-1.log 2>&1; tail -30 $OUT/run-1.log
set -u
limit=${LIMIT:-480}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz spirv-val; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a $res/machine.txt
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 200 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
if room 40; then
  # About two seeds a second at 14 jobs (session 69: 294 in 140 s): as many as the time left takes.
  seeds=${SEEDS:-$(( (limit - SECONDS - 20) * 2 ))}
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-15694} --seeds $seeds --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
