# Session 55's run on the H200 (session 54 was lent no machine; this carries its prepared
# run, s54-h200/run-1.sh, with session 55's builds). Builds, alternated in an order that
# rotates: a2cc303 (vigil-new3, session 53's last change to recording and submission),
# b05ef44 (vigil-new6: session 54's draw path inlined (bb7f0e6), a command buffer's Used
# boxed, the steps a plain submission never needs skipped), 33412fa (vigil-new7: a new
# encoder reserving its tables as far as recent recordings grew them) and f0a26f6
# (vigil-new9: that, and a sealed part's first use at submission computing its barrier
# only). new6 over new3 is session 54's work, new7 over new6 the reserved tables, new9
# over new7 the submission's barrier. Unlike s54's script, each part's output lands in
# $OUT as the part ends (a call cut off at its limit still returns the parts before), the
# parts run most wanted first, and a part starts only if LIMIT (seconds, default 560)
# leaves it room:
#   1. draws and dispatches through vigil and raw ash, RA rounds (default 8): ab-summary.txt
#   2. parallel-record, RP rounds (default 3): par-summary.txt
#   3. one full bench of the last build: full.txt, full.json (docs/performance.md's tables)
#   4. the packed suite (.gl/tests.tar.xz, compute-only queue expected): tests.txt
#   5. the fuzzer (.gl/bin/vigil-fuzz.sxz), 96 seeds from SEED (default 7700): fuzz.txt
# Each part's per-run outputs are tarred as PART.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s55-h200/run-1.sh > $OUT/run-1.log 2>&1; tail -3 $OUT/run-1.log
# Per-round ratios of two builds: python3 docs/results/s53-h200/ab.py ab-summary.txt new9 new7
set -u
read -r -a B <<< "${BUILDS:-new3 new6 new7 new9}"
n=${#B[@]}
limit=${LIMIT:-560}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
cd .gl && tar -xJf tools/tools.tar.xz && for b in "${B[@]}" fuzz; do xz -dc bin/vigil-$b.sxz > bin/vigil-$b; chmod +x bin/vigil-$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
o=/tmp/out1; rm -rf $o; mkdir -p $o/ab $o/par
line() { grep -E '(encode|submit|record x1): vigil/ash|vigil rate x8/x1' $1 | grep -vE 'NOT MET|^ +met ' | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
order() { local r=$1 i; for i in $(seq 0 $((n - 1))); do echo -n "${B[$(( (i + r) % n ))]} "; done; }
# rounds DIR COUNT BENCH-ARGS...: COUNT rounds of every build, order rotating.
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
room 120 && rounds ab ${RA:-8} --workload draws --workload dispatches
room 60 && rounds par ${RP:-3} --workload parallel-record
echo "parts 1-2 done ${SECONDS}s"
if room 190; then
  timeout 200 .gl/bin/vigil-${B[$((n - 1))]} bench --save $OUT/full.json > $OUT/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $OUT/full.txt
fi
if room 120; then
  tar -xJf .gl/tests.tar.xz -C .gl
  VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout $((limit - SECONDS - 50)) .gl/tests/run-all.sh > $OUT/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $OUT/tests.txt
fi
if room 45; then
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-7700} --seeds 96 --calls 5000 --jobs 14 > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $OUT/fuzz.txt
fi
echo "done ${SECONDS}s"
