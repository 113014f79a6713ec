# Session 67's device run: the suite and the fuzzer at 4541534 (a depth-stencil format's
# 4-sample support taken from every aspect it has; multisampled Stencil8 tested in S8_UINT
# and in the depth-stencil fallback), and the full bench of the same binary as session 66's
# tables (`vigil-s66`, 4a761f9: no timed path changed since), so that the machine this
# runs on gets a table of the same build as lavapipe's. The suite leaves out the 18
# executables that run on the test backend only (rules_* among them), so the carried tree
# stays within its 64 MiB: they run in CI. Then the fuzzer on seeds no run had used, from
# SEED (default 12493), with the time left (about two seeds a second). glslc and spirv-val
# carried. Outputs into $OUT/run-1.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s67/run-1.sh > $OUT/run-1.log 2>&1; tail -16 $OUT/run-1.log
set -u
limit=${LIMIT:-560}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz spirv-val vigil-s66; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 200 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
# A full bench took 145 s on an H100 in session 64 (run 4).
if room 160; then
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-s66 bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
if room 40; then
  # About two seeds a second at 14 jobs (session 65: 288 in 136 s): as many as the time left takes.
  seeds=${SEEDS:-$(( (limit - SECONDS - 20) * 2 ))}
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-12493} --seeds $seeds --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
