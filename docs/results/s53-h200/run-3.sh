# Session 53, run 3, on the H200: 4bcefc6 (vigil-head) against fc77655 (vigil-new2),
# alternated, order swapping every round: parallel-record through vigil and raw ash (the
# 8-thread row met in run 2's full run, which one run cannot credit to a change), then
# more marked submissions (phases-4.patch builds), draws and dispatches.
set -u
cd .gl && tar -xJf tools/tools.tar.xz && for b in vigil-head vigil-new2 vigil-ph4-head vigil-ph4-new2; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
o=/tmp/out3; mkdir -p $o/par $o/marks
line() { grep -E '(encode|submit|record x1): vigil/ash|vigil rate x8/x1' $1 | grep -v NOT | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
for r in $(seq 1 ${RP:-4}); do
  order="head new2"; [ $((r % 2)) = 0 ] && order="new2 head"
  for b in $order; do
    f=$o/par/$b-r$r
    timeout 60 .gl/bin/vigil-$b bench --workload parallel-record --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/par/summary.txt
  done
done
for r in $(seq 7 ${RM:-12}); do
  order="head new2"; [ $((r % 2)) = 0 ] && order="new2 head"
  for b in $order; do
    f=$o/marks/$b-r$r
    timeout 60 .gl/bin/vigil-ph4-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2> $f.err
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/marks/summary.txt
  done
done
echo "done ${SECONDS}s"
tar -cJf $OUT/run-3.tar.xz -C $o .
