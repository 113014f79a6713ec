# Session 71's device run, second call: where the time goes in churn, dispatches and
# draws on this host, at 3bef1fb (session 70's code). `perf record` of each workload
# through vigil and through raw ash alone (`vigil bench --workload W --path P`), reported
# for the timed CPU (15) by symbol and by library. perf 6.1 and its libraries travel as
# .gl/perfpk.tar.xz, and the bench binary stripped of debug information only (so perf
# names its functions) as .gl/bin/vigil-s71p.sxz; the suite's archive stays behind (the
# carry holds 64 MiB). Outputs into $OUT/run-2.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=300 bash docs/results/s71/run-2.sh > $OUT/run-2.log 2>&1; tail -40 $OUT/run-2.log
set -u
limit=${LIMIT:-300}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
xz -dc .gl/bin/vigil-s71p.sxz > .gl/bin/vigil-s71p && chmod +x .gl/bin/vigil-s71p
xz -dc .gl/bin/spirv-val.sxz > .gl/bin/spirv-val && chmod +x .gl/bin/spirv-val
tar -xJf .gl/perfpk.tar.xz -C /tmp
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)|L1d|L2|L3' | tee -a $res/machine.txt
perf() { LD_LIBRARY_PATH=/tmp/perfpk/lib /tmp/perfpk/perf "$@"; }
mkdir -p $res/perf
for wp in churn:vigil churn:ash dispatches:vigil dispatches:ash draws:vigil draws:ash; do
  room 40 || break
  w=${wp%:*} p=${wp#*:} d=/tmp/perf-$w-$p.data
  timeout 60 perf record -q --sample-cpu -F 10000 -o $d -- .gl/bin/vigil-s71p bench --workload $w --path $p > $res/perf/$w-$p-run.txt 2>&1
  echo "perf $w $p rc=$? ${SECONDS}s" | tee -a $res/perf/log.txt
  perf report -i $d --stdio -C 15 --no-children --sort dso,sym 2>/dev/null | head -120 > $res/perf/$w-$p-self.txt
  perf report -i $d --stdio -C 15 --no-children --sort dso 2>/dev/null | head -30 > $res/perf/$w-$p-dso.txt
  rm -f $d
  pack
done
pack
echo "done ${SECONDS}s"
