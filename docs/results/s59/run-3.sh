# Session 59's third device run: 69a5b62's bench binary (vigil-s59b: each path's timed run
# follows an untimed run of its own) beside 4157e72's (vigil-s59: without), on the subsets
# of paths of run 2, ROUNDS (default 2) rounds, then a full run of vigil-s59b. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s59/run-3.sh > $OUT/run-3.log 2>&1; tail -60 $OUT/run-3.log
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-s59 vigil-s59b; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-3.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() {
  local bin=$1 name=$2; shift 2
  timeout 60 .gl/bin/$bin bench "$@" --save $res/$name.json > $res/$name.txt 2>&1
  echo "$name rc=$? ${SECONDS}s"
  grep -E '^    (encode|submit): ' $res/$name.txt
}
for k in $(seq 1 ${ROUNDS:-2}); do
  for bin in vigil-s59 vigil-s59b; do
    run $bin $bin-draws-va-$k --workload draws --path vigil --path ash
    run $bin $bin-draws-vaw-$k --workload draws --path vigil --path ash --path wgpu
    run $bin $bin-draws-vawb-$k --workload draws --path vigil --path ash --path wgpu --path vigil-bundle
  done
  pack
done
if room 300; then
  timeout 290 .gl/bin/vigil-s59b bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
echo "done ${SECONDS}s"
