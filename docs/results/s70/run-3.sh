# Session 70's device run when little device time is left: the suite at a543b99 (as
# run-1.sh, no fuzzer), then draws, dispatches and churn through vigil, raw ash and wgpu
# (`vigil bench`, paired, 41 repetitions) with the rest of LIMIT. Outputs into $OUT.
# Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=230 bash docs/results/s70/run-3.sh > $OUT/run-3.log 2>&1; tail -30 $OUT/run-3.log
set -u
limit=${LIMIT:-230}
LIMIT=135 bash docs/results/s70/run-1.sh
xz -dc .gl/bin/vigil-s70.sxz > .gl/bin/vigil-s70 && chmod +x .gl/bin/vigil-s70
left=$((limit - SECONDS - 5))
if [ $left -ge 30 ]; then
  timeout $left .gl/bin/vigil-s70 bench --workload draws --workload dispatches --workload churn --save $OUT/rows.json > $OUT/rows.txt 2>&1; echo "bench rc=$? ${SECONDS}s"
  grep -E 'vigil/ash|targets met' $OUT/rows.txt | head -20
fi
echo "done ${SECONDS}s"
