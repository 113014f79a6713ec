# Session 59's device run, at 4157e72 (render bundles record indirect draws; the bench's
# draws workload has wgpu's bundle, `wgpu-bundle`, beside vigil's): DRAWS (default 6) runs
# of the draws workload alone (five paths), a full bench, the packed suite (all features,
# validation layer on) and the fuzzer from SEED (default 8856). Every output goes into one
# archive, $OUT/run-1.tar.xz (a run brings back at most eight files). Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s59-h100/run-1.sh > $OUT/run-1.log 2>&1; tail -12 $OUT/run-1.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-s59 vigil-fuzz; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for k in $(seq 1 ${DRAWS:-6}); do
  if room 200; then
    timeout 60 .gl/bin/vigil-s59 bench --workload draws --save $res/draws-$k.json > $res/draws-$k.txt 2>&1; echo "draws $k rc=$? ${SECONDS}s" | tee -a $res/draws-$k.txt
  fi
done
pack
if room 330; then
  timeout 220 .gl/bin/vigil-s59 bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
if room 130; then
  tar -xJf .gl/tests.tar.xz -C .gl
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 60)) .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep -o "[0-9]* passed; [0-9]* failed" $res/tests.txt | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
fi
pack
if room 40; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-8856} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
