# Session 73's fourth device run: small device-local buffers in slabs (b3885e7) on a GPU.
# (1) An A/B of churn, dispatches and draws: vigil-s73m (943fee9's code: members inline,
# allocations from gpu-allocator) against vigil-s73s (b3885e7: the same with slabs),
# alternated, the first of each round alternating too. (2) The suite packed at b3885e7
# (with the slab test in lifetime.rs). (3) The fuzzer of b3885e7 with what time is left.
# Built by build.sh (s73s) and the packing steps of ../s71/README.md. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=320 bash docs/results/s73/run-4.sh > $OUT/run-4.log 2>&1; tail -40 $OUT/run-4.log
set -u
limit=${LIMIT:-320}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
for b in vigil-s73m vigil-s73s spirv-val vigil-fuzz; do xz -dc .gl/bin/$b.sxz > .gl/bin/$b && chmod +x .gl/bin/$b; done
(cd .gl && tar -xJf tests.tar.xz)
export PATH=$PWD/.gl/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E 'Model name'
mkdir -p $OUT/ab
for r in $(seq 1 ${ROUNDS:-5}); do
  room 200 || break
  if [ $((r % 2)) = 1 ]; then order="m s"; else order="s m"; fi
  for v in $order; do
    for w in churn dispatches draws; do
      timeout 60 .gl/bin/vigil-s73$v bench --workload $w --path vigil --path ash > $OUT/ab/r$r-$v-$w.txt 2>&1
      echo "ab r$r $v $w rc=$? ${SECONDS}s" >> $OUT/ab/log.txt
    done
  done
done
for w in churn dispatches draws; do
  for v in m s; do
    echo "$w $v: $(grep -h ': vigil/ash  ' $OUT/ab/r*-$v-$w.txt | awk '{print $1 $3}' | tr '\n' ' ')"
  done
done | tee $OUT/ab/summary.txt
grep -h -E '^  (create|destroy) +(vigil|ash) ' $OUT/ab/r*-s-churn.txt | awk '{print $1, $2, $4}' | tr '\n' ';'; echo
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 150 .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $OUT/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $OUT/tests.txt) of $(grep -c ': rc=' $OUT/tests.txt)"
  grep ': rc=' $OUT/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $OUT/tests.txt | head -8
  grep -A3 "small_buffers_sharing" $OUT/tests.txt | head -3
  xz -9 $OUT/tests.txt
fi
if room 40; then
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-17330} --seeds $(( (limit - SECONDS - 15) * 2 )) --calls 5000 --jobs 14 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s"
  grep FUZZ-TOTAL $OUT/fuzz.txt
  grep FUZZ-RESULT $OUT/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
  xz -9 $OUT/fuzz.txt
fi
echo "done ${SECONDS}s"
