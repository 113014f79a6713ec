# Session 59's second device run, at 4157e72's bench binary: does the path that runs just
# before a path's timed frame change that frame's submit time? The harness rotates the
# paths' order by one place per repetition, so each path always follows the same other
# path (vigil follows the last path of the list, vigil-bundle follows wgpu). The draws and
# dispatches workloads with subsets of the paths, ROUNDS (default 3) rounds, interleaved.
# Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s59/run-2.sh > $OUT/run-2.log 2>&1; tail -40 $OUT/run-2.log
set -u
cd .gl && for b in vigil-s59; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() {
  local name=$1; shift
  timeout 60 .gl/bin/vigil-s59 bench "$@" --save $res/$name.json > $res/$name.txt 2>&1
  echo "$name rc=$? ${SECONDS}s"
  grep -E '^    (encode|submit): ' $res/$name.txt
}
for k in $(seq 1 ${ROUNDS:-3}); do
  run draws-va-$k --workload draws --path vigil --path ash
  run draws-vaw-$k --workload draws --path vigil --path ash --path wgpu
  run draws-vab-$k --workload draws --path vigil --path ash --path vigil-bundle
  run draws-vawb-$k --workload draws --path vigil --path ash --path wgpu --path vigil-bundle
  run disp-va-$k --workload dispatches --path vigil --path ash
  run disp-vaw-$k --workload dispatches --path vigil --path ash --path wgpu
  pack
done
echo "done ${SECONDS}s"
