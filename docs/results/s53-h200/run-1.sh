# Session 53, run 1, on the H200. Builds (stripped, xz-compressed in .gl/bin, all
# `cargo build --release -p vigil-cli --features bench`): vigil-head (4bcefc6, library of
# 8b072e9), vigil-base (7ad84f8), and both with phases-4.patch (vigil-ph4-head,
# vigil-ph4-base): session 52's submission marks kept in a thread-local instead of printed
# inside the call, one more mark after the inner function's locals are dropped ("ret"),
# and the bench printing, per timed submission, the time from its own clock read to the
# call's first ("lead"), the marks, its own total, and the thread's page faults and
# context switches across the call (getrusage). Asks where the ~23 us go between the
# marked end of a submission (~36 us) and the bench's figure for it (~59 us).
# Part 1: the marked builds, draws and dispatches through vigil and raw ash, alternated,
# order rotating. Part 2: glibc's defaults against malloc thresholds that keep freed
# memory (session 52's next/run-6.sh question) on vigil-head. Part 3: vigil-head against
# vigil-base unmarked (8b072e9's timing), draws, dispatches, churn.
set -u
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-head vigil-base vigil-ph4-head vigil-ph4-base; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
o=$OUT/run-1; mkdir -p $o/marks $o/malloc $o/ab
line() { grep -E '(encode|submit|create|destroy): vigil/ash' $1 | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
for r in $(seq 1 ${R1:-6}); do
  order="head base"; [ $((r % 2)) = 0 ] && order="base head"
  for b in $order; do
    f=$o/marks/$b-r$r
    timeout 60 .gl/bin/vigil-ph4-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2> $f.err
    echo "== $b r$r ${SECONDS}s: $(line $f.txt) $(grep -c PHASES $f.err) marked" | tee -a $o/marks/summary.txt
  done
done
keep="glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=1073741824:glibc.malloc.top_pad=67108864"
for r in $(seq 1 ${R2:-4}); do
  order="default keep"; [ $((r % 2)) = 0 ] && order="keep default"
  for mode in $order; do
    t=""; [ $mode = keep ] && t=$keep
    f=$o/malloc/$mode-r$r
    GLIBC_TUNABLES=$t timeout 90 .gl/bin/vigil-head bench --workload draws --workload dispatches --workload churn --path vigil --path ash > $f.txt 2>&1
    GLIBC_TUNABLES=$t timeout 60 .gl/bin/vigil-ph4-head bench --workload draws --path vigil --path ash > $f-ph.txt 2> $f-ph.err
    echo "== $mode r$r ${SECONDS}s: $(line $f.txt)" | tee -a $o/malloc/summary.txt
  done
done
for r in $(seq 1 ${R3:-6}); do
  order="head base"; [ $((r % 2)) = 0 ] && order="base head"
  for b in $order; do
    f=$o/ab/$b-r$r
    timeout 90 .gl/bin/vigil-$b bench --workload draws --workload dispatches --workload churn --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" | tee -a $o/ab/summary.txt
  done
done
