# Session 64's first device run, at 8107edf (session 63's last code commit, whose last
# commits never ran on a GPU): the suite of vigil, vigil-vulkan and vigil-graph (all
# features, validation layer on), a full bench (never run of session 63's own build), then
# the fuzzer with the time left, from SEED (default 10439). Every output goes into
# $OUT/run-1.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s64/run-1.sh > $OUT/run-1.log 2>&1; tail -16 $OUT/run-1.log
set -u
limit=${LIMIT:-575}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in vigil-s64a vigil-fuzz; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 220 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
grep -o "[0-9]* passed; [0-9]* failed" $res/tests.txt | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
grep -E 'FAILED|panicked' $res/tests.txt | head -8
pack
if room 300; then
  timeout 290 .gl/bin/vigil-s64a bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
if room 40; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-10439} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
