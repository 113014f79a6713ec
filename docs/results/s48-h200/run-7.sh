# Session 48, last check on the H200 at 97e97d9 (every encoder call counted, one
# instruction a call on the recording path): the recording workloads through vigil, raw
# ash and wgpu, paired as in a full run (draws, dispatches, parallel-record).
source .gl/enter.sh
cd .gl && xz -dkf bin/vigil-fin.xz && chmod +x bin/vigil-fin && cd ..
for w in draws dispatches parallel-record; do
  timeout 150 .gl/bin/vigil-fin bench --workload $w --save $OUT/$w.json > $OUT/$w.txt 2>&1; echo "$w rc=$? ${SECONDS}s"
  grep -A20 "^targets" $OUT/$w.txt | grep -E "met|NOT"
done 2>&1 | tee $OUT/log.txt
