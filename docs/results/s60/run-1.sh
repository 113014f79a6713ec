# Session 60's first device run, at 5cc14ec (the bench with a lead-in per turn, and the
# library with 891cfbc's bundle replay): a full bench, then whether writes, bandwidth and
# parallel-record (the workloads left without a lead-in) carry over from the path before
# them (VIGIL_BENCH_LEAD_IN=all against the default, ROUNDS rounds, default 2, alternated),
# then the fuzzer from SEED (default 9048) with the time left. Every output goes into one
# archive, $OUT/run-1.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s60/run-1.sh > $OUT/run-1.log 2>&1; tail -12 $OUT/run-1.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-s60a vigil-fuzz; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if room 300; then
  timeout 290 .gl/bin/vigil-s60a bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
three="--workload writes --workload bandwidth --workload parallel-record"
for k in $(seq 1 ${ROUNDS:-2}); do
  for mode in all default; do
    if room 120; then
      if [ $mode = all ]; then export VIGIL_BENCH_LEAD_IN=all; else unset VIGIL_BENCH_LEAD_IN; fi
      timeout 110 .gl/bin/vigil-s60a bench $three --save $res/carry-$mode-$k.json > $res/carry-$mode-$k.txt 2>&1; echo "carry $mode $k rc=$? ${SECONDS}s" | tee -a $res/carry-$mode-$k.txt
      unset VIGIL_BENCH_LEAD_IN
    fi
  done
  pack
done
if room 60; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-9048} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
