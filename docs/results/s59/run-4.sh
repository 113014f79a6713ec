# Session 59's fourth device run: a full run of 69a5b62's bench (vigil-s59b, the lead-in
# per turn) and the fuzzer from SEED (default 9048) on the final library. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s59/run-4.sh > $OUT/run-4.log 2>&1; tail -12 $OUT/run-4.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-s59b vigil-fuzz; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-4.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if room 300; then
  timeout 290 .gl/bin/vigil-s59b bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
if room 60; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-9048} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
fi
pack
echo "done ${SECONDS}s"
