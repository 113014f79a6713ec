# Prepared in session 52 for the next machine session, not run: does memory handed back
# to the kernel and faulted in again cost vigil's submission (or encode, or churn) on the
# H200? Session 43 asked it of parallel-record only (../../s43-h200/alloc-diag.sh); on
# lavapipe the driver's thread shrinks its heap far more often in vigil's run than in raw
# ash's (../../s52-lavapipe/README.md, arena/). Builds, carried xz-compressed in .gl/bin:
# `vigil` (cargo build --release -p vigil-cli --features bench, the library under test)
# and `vigil-ph` (the same with phases-3.patch applied: ../submit-phases/phases-2.patch
# without its RESOLVE line, whose printing inflated the planning). Alternated, order rotating:
# glibc's defaults against thresholds that keep freed memory in the process.
keep="glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=67108864"
rounds=${ROUNDS:-4}
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil vigil-ph; do xz -dkf bin/$b.xz; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p $OUT/run-6
for r in $(seq 1 $rounds); do
  order="default keep"; [ $((r % 2)) = 0 ] && order="keep default"
  for mode in $order; do
    t=""; [ $mode = keep ] && t=$keep
    f=$OUT/run-6/$mode-r$r
    GLIBC_TUNABLES=$t timeout 120 .gl/bin/vigil bench --workload draws --workload dispatches --workload churn --path vigil --path ash > $f.txt 2>&1
    GLIBC_TUNABLES=$t timeout 60 .gl/bin/vigil-ph bench --workload draws --path vigil --path ash > $f-ph.txt 2> $f-ph.err
    echo "== $mode r$r ${SECONDS}s: $(grep -E '(encode|submit|create|destroy): vigil/ash' $f.txt | sed 's/ \{2,\}/ /g' | tr '\n' ';')" | tee -a $OUT/run-6/summary.txt
  done
done
