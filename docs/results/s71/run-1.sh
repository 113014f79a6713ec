# Session 71's device run: the suite, a full bench, the code-load experiment and the
# fuzzer, at 3bef1fb (session 70's library) with the bench's code-load knob
# (`VIGIL_BENCH_CODE_KIB`, off unless set; see crates/vigil-bench/src/code_load.rs).
# Parts in that order, each only while LIMIT leaves it room:
#  1. the suite (release, --all-features, packed by gpu-pack-tests.sh);
#  2. `vigil-s71 bench --save` (the H200 tables at the kept code);
#  3. churn through vigil and raw ash with 0, 8, 16 and 32 KiB of extra straight-line code
#     run once per buffer + group created and once per one destroyed, rounds alternated:
#     what fetching that much code again costs per unit on this host, against the same
#     code run back to back (printed as "code load");
#  4. the GPU fuzzer on seeds no run had used, from SEED (default 15694).
# Outputs into $OUT/run-1.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=570 bash docs/results/s71/run-1.sh > $OUT/run-1.log 2>&1; tail -40 $OUT/run-1.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz spirv-val vigil-s71; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)|L1i|L1d|L2|L3' | tee -a $res/machine.txt
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 200 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
# A full bench took 145 s on an H100 in session 64 (run 4).
if room 230; then
  timeout 220 .gl/bin/vigil-s71 bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
  grep -E 'targets met' $res/full.txt
fi
pack
mkdir -p $res/code
for round in 1 2 3; do
  for k in 0 8 16 32; do
    room 40 || break 2
    VIGIL_BENCH_CODE_KIB=$k timeout 35 .gl/bin/vigil-s71 bench --workload churn --path vigil --path ash > $res/code/r$round-k$k.txt 2>&1
    echo "code r$round k$k rc=$? ${SECONDS}s" >> $res/code/log.txt
    echo "r$round k$k: $(grep 'code load' $res/code/r$round-k$k.txt) $(grep -E '^  (create|destroy) +(vigil|ash) ' $res/code/r$round-k$k.txt | awk '{printf "%s %s %s ns; ", $1, $2, $4}')"
  done
  pack
done
pack
if room 40; then
  seeds=${SEEDS:-$(( (limit - SECONDS - 20) * 2 ))}
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-15694} --seeds $seeds --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
