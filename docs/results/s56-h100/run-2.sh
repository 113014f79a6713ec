# Session 56's second device run. Builds alternated: 33412fa (vigil-new7), 33412fa with the
# tables-kept patch of session 55 (vigil-new8, s55-lavapipe/spare-tables-tried.patch),
# f0a26f6 (vigil-new9), afbd5d7 (vigil-new10: a submission's undo lists kept from the last
# one, texture states copied into them at once) and cc90b90 (vigil-new12: the copy kept,
# the lists allocated per submission again, since keeping them slowed lavapipe's dispatch
# submission). Then a full bench of the last build and the packed suite (.gl/tests.tar.xz,
# of cc90b90) with its per-executable lines. As s55-h200/run-1.sh: each part's output lands
# in $OUT as the part ends, and a part starts only if LIMIT (seconds, default 570) leaves
# it room. Builds are made by ../bench-build.sh. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s56-h100/run-2.sh > $OUT/run-2.log 2>&1; tail -3 $OUT/run-2.log
# Per-round ratios of two builds: python3 docs/results/s53-h200/ab.py ab-summary.txt new12 new9
set -u
read -r -a B <<< "${BUILDS:-new7 new8 new9 new10 new12}"
n=${#B[@]}
limit=${LIMIT:-570}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in "${B[@]}"; do xz -dc bin/vigil-$b.sxz > bin/vigil-$b; chmod +x bin/vigil-$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
o=/tmp/out2; rm -rf $o; mkdir -p $o/ab $o/par
line() { grep -E '(encode|submit|record x1): vigil/ash|vigil rate x8/x1' $1 | grep -vE 'NOT MET|^ +met ' | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
order() { local r=$1 i; for i in $(seq 0 $((n - 1))); do echo -n "${B[$(( (i + r) % n ))]} "; done; }
rounds() {
  local dir=$1 count=$2 r b f; shift 2
  for r in $(seq 1 $count); do
    for b in $(order $r); do
      f=$o/$dir/$b-r$r
      timeout 60 .gl/bin/vigil-$b bench "$@" --path vigil --path ash > $f.txt 2>&1
      echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $OUT/$dir-summary.txt
    done
  done
  tar -cJf $OUT/$dir.tar.xz -C $o $dir
}
room 120 && rounds ab ${RA:-6} --workload draws --workload dispatches
room 60 && rounds par ${RP:-2} --workload parallel-record
echo "parts 1-2 done ${SECONDS}s"
if room 190; then
  timeout 200 .gl/bin/vigil-${B[$((n - 1))]} bench --save $OUT/full.json > $OUT/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/full.txt
fi
if room 120; then
  tar -xJf .gl/tests.tar.xz -C .gl
  # (OUT unset for run-all.sh: its own tests.log would be a ninth file, and only eight return.)
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 5)) .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $OUT/tests.txt
fi
echo "done ${SECONDS}s"
