# Session 73's second device run. (1) Where the time goes, at the current library: `perf
# record` of churn, dispatches and draws through vigil and through raw ash alone, reported
# for the timed CPU (15) by symbol and by library (session 71's run-2.sh, never run). (2)
# An A/B of a bind group's members held inline when there is one (GroupMembers): churn,
# dispatches and draws, the two builds alternated. Binaries (built by
# `docs/results/s73/build.sh`, debug information stripped, symbols kept): .gl/bin/vigil-s73b
# (a6365f1, 3bef1fb's library) and vigil-s73m (the same with the change); perf 6.1 and its
# libraries as .gl/perfpk.tar.xz; the suite's archive stays behind. Outputs into
# $OUT/run-2.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s73/run-2.sh > $OUT/run-2.log 2>&1; tail -60 $OUT/run-2.log
set -u
limit=${LIMIT:-540}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
for b in vigil-s73b vigil-s73m spirv-val; do xz -dc .gl/bin/$b.sxz > .gl/bin/$b && chmod +x .gl/bin/$b; done
tar -xJf .gl/perfpk.tar.xz -C /tmp
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)|L1d|L1i|L2|L3' | tee -a $res/machine.txt
perf() { LD_LIBRARY_PATH=/tmp/perfpk/lib /tmp/perfpk/perf "$@"; }
# (2) first: the A/B, while the machine is fresh. Rounds alternate the builds, the first
# build of each round alternating too.
mkdir -p $res/ab
for r in $(seq 1 ${ROUNDS:-6}); do
  room 60 || break
  if [ $((r % 2)) = 1 ]; then order="b m"; else order="m b"; fi
  for v in $order; do
    for w in churn dispatches draws; do
      timeout 60 .gl/bin/vigil-s73$v bench --workload $w --path vigil --path ash > $res/ab/r$r-$v-$w.txt 2>&1
      echo "ab r$r $v $w rc=$? ${SECONDS}s" >> $res/ab/log.txt
    done
  done
  pack
done
for w in churn dispatches draws; do
  for v in b m; do
    echo "$w $v: $(grep -h ": vigil/ash  " $res/ab/r*-$v-$w.txt | awk '{print $1 $3}' | tr '\n' ' ')"
  done
done | tee $res/ab/summary.txt
# (1) the profiles, of the base build.
mkdir -p $res/perf
for wp in churn:vigil churn:ash dispatches:vigil dispatches:ash draws:vigil draws:ash; do
  room 40 || break
  w=${wp%:*} p=${wp#*:} d=/tmp/perf-$w-$p.data
  timeout 60 env LD_LIBRARY_PATH=/tmp/perfpk/lib /tmp/perfpk/perf record -q --sample-cpu -F 10000 -o $d -- .gl/bin/vigil-s73b bench --workload $w --path $p > $res/perf/$w-$p-run.txt 2>&1
  echo "perf $w $p rc=$? ${SECONDS}s" | tee -a $res/perf/log.txt
  perf report -i $d --stdio -C 15 --no-children --sort dso,sym 2>/dev/null | head -150 > $res/perf/$w-$p-self.txt
  perf report -i $d --stdio -C 15 --no-children --sort dso 2>/dev/null | head -30 > $res/perf/$w-$p-dso.txt
  rm -f $d
  pack
done
pack
echo "done ${SECONDS}s"
