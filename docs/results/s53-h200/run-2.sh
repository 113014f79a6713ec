# Session 53, run 2, on the H200. Builds, alternated in an order that rotates: 4bcefc6
# (vigil-head, library of 8b072e9), 227b840 (vigil-new: tracked textures read side by
# side before the queue lock; the seams' locked instructions skipped when nothing is
# armed) and fc77655 (vigil-new2: a command encoder without its own copy of ash::Device).
# Carried in .gl: tests.tar.xz (the vigil crate's test executables at fc77655, all
# features, gpu-pack-tests.sh), bin/vigil-fuzz.sxz (fc77655), bin/vigil-{head,new,new2}.sxz
# (bench builds) and bin/vigil-ph4-{head,new,new2}.sxz (the same with phases-4.patch).
# Parts: 1. the suite with the compute-only queue expected; 2. the fuzzer, 96 seeds;
# 3. marked submissions, draws and dispatches through vigil and raw ash; 4. the same
# unmarked; 5. one full bench run of fc77655 (docs/performance.md's tables).
set -u
cd .gl && tar -xJf tools/tools.tar.xz && tar -xJf tests.tar.xz && for b in vigil-head vigil-new vigil-new2 vigil-ph4-head vigil-ph4-new vigil-ph4-new2 vigil-fuzz; do xz -dc bin/$b.sxz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
o=/tmp/out2; mkdir -p $o/marks $o/ab
VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 200 .gl/tests/run-all.sh > $o/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $o/tests.txt
timeout 100 .gl/bin/vigil-fuzz --seed 7600 --seeds 96 --calls 5000 --jobs 14 > $o/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $o/fuzz.txt
line() { grep -E '(encode|submit): vigil/ash' $1 | grep -v NOT | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
orders=("head new new2" "new new2 head" "new2 head new")
for r in $(seq 1 ${R3:-6}); do
  for b in ${orders[$((r % 3))]}; do
    f=$o/marks/$b-r$r
    timeout 60 .gl/bin/vigil-ph4-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2> $f.err
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/marks/summary.txt
  done
done
for r in $(seq 1 ${R4:-6}); do
  for b in ${orders[$((r % 3))]}; do
    f=$o/ab/$b-r$r
    timeout 60 .gl/bin/vigil-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" >> $o/ab/summary.txt
  done
done
echo "parts 1-4 done ${SECONDS}s"
timeout ${FULL_S:-240} .gl/bin/vigil-new2 bench --save $o/full.json > $o/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> $o/full.txt
tail -1 $o/full.txt
tar -cJf $OUT/run-2.tar.xz -C $o .
