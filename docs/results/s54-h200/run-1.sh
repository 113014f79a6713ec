# Prepared in session 54, which was lent no machine; for the next session that is. Builds,
# alternated in an order that rotates: a2cc303 (vigil-new3, session 53's last change to
# recording and submission; the same bench binary as s53-h200/run-3.sh's), bb7f0e6
# (vigil-new4: prepare_draw inlined into draw and draw_indexed, set_bind_group inlinable;
# 931.6 -> 836.0 instructions a draw on the test backend) and b05ef44 (vigil-new6: that,
# a command buffer's Used boxed and taken by a submission as a pointer (94d1fdf), and the
# steps a plain submission never needs skipped; 541 -> 429 lines of code a submission on
# lavapipe). new4 over new3 is the draw path's change; new6 over new4 the submission's.
# Carried in .gl: tests.tar.xz (the vigil crate's test executables at b05ef44, all
# features, gpu-pack-tests.sh), bin/vigil-fuzz.sxz (b05ef44) and
# bin/vigil-{new3,new4,new6}.sxz (bench builds, stripped, xz). Parts: 1. the suite with
# the compute-only queue expected; 2. the fuzzer, 96 seeds; 3. draws and dispatches
# through vigil and raw ash, RA rounds (default 8); 4. parallel-record, RP rounds (default
# 4); 5. one full bench run of the last build (docs/performance.md's tables; FULL=0 skips
# it). On the H200 in session 53 a draws-and-dispatches run took ~3 s, the suite 100 s,
# the fuzzer 44 s and the full bench 168 s: about 7 minutes in all. Output tarred into
# $OUT/run-1.tar.xz:
#   source .gl/enter.sh; bash docs/results/s54-h200/run-1.sh > $OUT/run-1.log 2>&1; tail -3 $OUT/run-1.log
# (carry [".gl"], timeout 600). Summaries: python3 docs/results/s53-h200/ab.py
# DIR/ab/summary.txt new4 new3 (and new6 new4, new6 new3).
set -u
read -r -a B <<< "${BUILDS:-new3 new4 new6}"
n=${#B[@]}
cd .gl && tar -xJf tools/tools.tar.xz && { [ "${SUITE:-1}" = 0 ] || tar -xJf tests.tar.xz; } && for b in "${B[@]}" fuzz; do xz -dc bin/vigil-$b.sxz > bin/vigil-$b; chmod +x bin/vigil-$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
o=/tmp/out1; rm -rf $o; mkdir -p $o/ab $o/par
if [ "${SUITE:-1}" = 1 ]; then  # SUITE=0 FULL=0 RA=1 RP=1: a quick try of the rest
  VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 200 .gl/tests/run-all.sh > $o/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $o/tests.txt
  timeout 100 .gl/bin/vigil-fuzz --seed 7700 --seeds 96 --calls 5000 --jobs 14 > $o/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $o/fuzz.txt
fi
line() { grep -E '(encode|submit|record x1): vigil/ash|vigil rate x8/x1' $1 | grep -vE 'NOT MET|^ +met ' | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
order() { local r=$1 i; for i in $(seq 0 $((n - 1))); do echo -n "${B[$(( (i + r) % n ))]} "; done; }
# rounds DIR COUNT BENCH-ARGS...: COUNT rounds of every build, order rotating.
rounds() {
  local dir=$1 count=$2 r b f; shift 2
  for r in $(seq 1 $count); do
    for b in $(order $r); do
      f=$o/$dir/$b-r$r
      timeout 60 .gl/bin/vigil-$b bench "$@" --path vigil --path ash > $f.txt 2>&1
      echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/$dir/summary.txt
    done
  done
}
rounds ab ${RA:-8} --workload draws --workload dispatches
rounds par ${RP:-4} --workload parallel-record
echo "parts 1-4 done ${SECONDS}s"
if [ "${FULL:-1}" = 1 ]; then
  timeout ${FULL_S:-240} .gl/bin/vigil-${B[$((n - 1))]} bench --save $o/full.json > $o/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $o/full.txt
fi
echo "done ${SECONDS}s"
tar -cJf $OUT/run-1.tar.xz -C $o .
