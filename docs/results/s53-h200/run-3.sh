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
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:${LD_LIBRARY_PATH:-}
o=/tmp/out3; rm -rf $o; mkdir -p $o/par $o/marks $o/ab
line() { grep -E '(encode|submit|record x1): vigil/ash|vigil rate x8/x1' $1 | grep -vE 'NOT MET|^ +met ' | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
order() { local r=$1 i; for i in $(seq 0 $((n - 1))); do echo -n "${B[$(( (i + r) % n ))]} "; done; }
# rounds DIR COUNT PREFIX BENCH-ARGS...: COUNT rounds of every build, order rotating; the
# marked builds' stderr (their marks) goes to .err, the others' with stdout.
rounds() {
  local dir=$1 count=$2 prefix=$3 r b f; shift 3
  for r in $(seq 1 $count); do
    for b in $(order $r); do
      f=$o/$dir/$b-r$r
      if [ "$prefix" = vigil-ph4 ]; then
        timeout 60 .gl/bin/$prefix-$b bench "$@" --path vigil --path ash > $f.txt 2> $f.err
      else
        timeout 60 .gl/bin/$prefix-$b bench "$@" --path vigil --path ash > $f.txt 2>&1
      fi
      echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/$dir/summary.txt
    done
  done
}
rounds par ${RP:-4} vigil --workload parallel-record
rounds marks ${RM:-6} vigil-ph4 --workload draws --workload dispatches
rounds ab ${RA:-6} vigil --workload draws --workload dispatches
echo "done ${SECONDS}s"
tar -cJf $OUT/run-3.tar.xz -C $o .
