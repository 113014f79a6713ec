# Session 57's run of fc46aa8's library (the hot recording calls' closures by value; the
# bench binary of e25c222, .gl/bin/vigil-s57b.sxz, built by ../bench-build.sh): draws and
# dispatches through vigil and raw ash, alternated with 634de3e's binary (vigil-s57) for
# ROUNDS rounds (default 4), then a full bench of e25c222. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s57-h100/run-4.sh > $OUT/run-4.log 2>&1; tail -3 $OUT/run-4.log
# Per-round ratios: python3 docs/results/s53-h200/ab.py ab-summary.txt s57b s57
set -u
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
B=(s57 s57b)
cd .gl && tar -xJf tools/tools.tar.xz && for b in "${B[@]}"; do xz -dc bin/vigil-$b.sxz > bin/vigil-$b; chmod +x bin/vigil-$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
line() { grep -E '(encode|submit): vigil/ash' $1 | grep -vE 'NOT MET|^ +met ' | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
o=/tmp/out4; rm -rf $o; mkdir -p $o/ab
for r in $(seq 1 ${ROUNDS:-4}); do
  room 60 || break
  for i in 0 1; do
    b=${B[$(( (i + r) % 2 ))]}
    f=$o/ab/$b-r$r
    timeout 60 .gl/bin/vigil-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $OUT/ab-summary.txt
  done
done
tar -cJf $OUT/ab.tar.xz -C $o ab
if room 200; then
  timeout 210 .gl/bin/vigil-s57b bench --save $OUT/full.json > $OUT/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $OUT/full.txt
fi
echo "done ${SECONDS}s"
