# Session 70's device run, second part: a full bench of a543b99 (`vigil-s70`, built and
# stripped by ../bench-build.sh), then, when perf travels too (perf 6.1 and its libraries
# as .gl/perfpk.tar.xz, and a bench binary stripped of debug information only, so perf
# can name its functions; with the suite's archive the carry has no room for them), where
# the time goes in the rows furthest from their targets: `perf record` of churn,
# dispatches and draws, each path alone, reported for the timed CPU (15) by symbol.
# Outputs into $OUT/run-2.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=480 bash docs/results/s70/run-2.sh > $OUT/run-2.log 2>&1; tail -40 $OUT/run-2.log
set -u
limit=${LIMIT:-480}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && for b in spirv-val vigil-s70; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
# perf travels only when the carry has room for it (the suite's archive takes most of it).
[ -f .gl/perfpk.tar.xz ] && tar -xJf .gl/perfpk.tar.xz -C /tmp
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)|L1d|L2|L3' | tee -a $res/machine.txt
# A full bench took 145 s on an H100 in session 64 (run 4).
if room 230; then
  timeout 220 .gl/bin/vigil-s70 bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
  grep -E 'targets met' $res/full.txt
fi
pack
perf() { LD_LIBRARY_PATH=/tmp/perfpk/lib /tmp/perfpk/perf "$@"; }
mkdir -p $res/perf
[ -x /tmp/perfpk/perf ] || echo "perf not carried: no profiles"
for wp in churn:vigil churn:ash dispatches:vigil dispatches:ash draws:vigil draws:ash; do
  [ -x /tmp/perfpk/perf ] && room 40 || break
  w=${wp%:*} p=${wp#*:} d=/tmp/perf-$w-$p.data
  timeout 60 perf record -q --sample-cpu -F 10000 -o $d -- .gl/bin/vigil-s70 bench --workload $w --path $p > $res/perf/$w-$p-run.txt 2>&1
  echo "perf $w $p rc=$? ${SECONDS}s" | tee -a $res/perf/log.txt
  perf report -i $d --stdio -C 15 --no-children --sort dso,sym 2>/dev/null | head -90 > $res/perf/$w-$p-self.txt
  perf report -i $d --stdio -C 15 --no-children --sort dso 2>/dev/null | head -30 > $res/perf/$w-$p-dso.txt
  rm -f $d
done
pack
echo "done ${SECONDS}s"
