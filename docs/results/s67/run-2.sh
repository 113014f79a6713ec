# Session 67's second device run, binaries at 6d91680 (the code of ce9eeb3: a format's
# 4-sample support from the driver's answer for it as an attachment, and a 4-sample image
# the driver would not make with its usage refused; the test that makes every format said
# to multisample as a 4-sample attachment and clears it): the suite (without the 18
# executables that run on the test backend only, rules_* among them, so the carried tree
# stays within its 64 MiB: they run in CI), then the fuzzer on seeds no run had used, from
# SEED (default 13091), with the time left (about two seeds a second). No bench: no timed
# path changed. glslc and spirv-val carried. Outputs into $OUT/run-2.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=480 bash docs/results/s67/run-2.sh > $OUT/run-2.log 2>&1; tail -16 $OUT/run-2.log
set -u
limit=${LIMIT:-480}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz spirv-val; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 200 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
if room 40; then
  # About two seeds a second at 14 jobs (session 65: 288 in 136 s): as many as the time left takes.
  seeds=${SEEDS:-$(( (limit - SECONDS - 20) * 2 ))}
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-13091} --seeds $seeds --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
