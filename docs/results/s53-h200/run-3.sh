# Prepared in session 53 (not run there: no machine was lent again). Builds alternated in
# an order that rotates, by default 4bcefc6 (vigil-head), fc77655 (vigil-new2) and a2cc303
# (vigil-new3: the command buffers walked in place), each a bench build with its
# phases-4.patch build beside it (vigil-ph4-NAME), stripped and xz-compressed in .gl/bin
# as NAME.sxz. Part 1: parallel-record through vigil and raw ash (the eight-thread row
# met in run 2's full run, which one run cannot credit to a change). Part 2: marked
# submissions, draws and dispatches. Part 3: the same unmarked.
set -u
read -r -a B <<< "${BUILDS:-head new2 new3}"
n=${#B[@]}
cd .gl && tar -xJf tools/tools.tar.xz && for b in "${B[@]}"; do for v in vigil-$b vigil-ph4-$b; do xz -dc bin/$v.sxz > bin/$v; chmod +x bin/$v; done; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
o=/tmp/out3; rm -rf $o; mkdir -p $o/par $o/marks $o/ab
line() { grep -E '(encode|submit|record x1): vigil/ash|vigil rate x8/x1' $1 | grep -v NOT | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
order() { local r=$1 i; for i in $(seq 0 $((n - 1))); do echo -n "${B[$(( (i + r) % n ))]} "; done; }
for r in $(seq 1 ${RP:-4}); do
  for b in $(order $r); do
    f=$o/par/$b-r$r
    timeout 60 .gl/bin/vigil-$b bench --workload parallel-record --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/par/summary.txt
  done
done
for r in $(seq 1 ${RM:-6}); do
  for b in $(order $r); do
    f=$o/marks/$b-r$r
    timeout 60 .gl/bin/vigil-ph4-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2> $f.err
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/marks/summary.txt
  done
done
for r in $(seq 1 ${RA:-6}); do
  for b in $(order $r); do
    f=$o/ab/$b-r$r
    timeout 60 .gl/bin/vigil-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/ab/summary.txt
  done
done
echo "done ${SECONDS}s"
tar -cJf $OUT/run-3.tar.xz -C $o .
