# Session 52, run 5. First the draws frame's submission again with finer marks
# (submit-phases/phases-2.patch: run 4's marks plus four around each command buffer's
# stamp, native hand-over, `Used` and drop, and the time of each `resolve`), 7ad84f8's
# library, three runs of `draws` through vigil and raw ash. Then the fuzzer of 7ad84f8
# (library c0b9b94) over seeds no H200 run had used (from 7100), 5,000 calls each, 14 at
# a time, validation layer on, stopped by its time limit; its output goes to $OUT as it
# is written, so a run stopped at the limit still comes back.
cd .gl && tar -xJf tools/tools.tar.xz && xz -dkf bin/vigil-fuzz.xz bin/vigil-ph2.xz && chmod +x bin/vigil-fuzz bin/vigil-ph2 && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p $OUT/phases-2
for r in $(seq 1 ${PHASE_RUNS:-3}); do
  timeout 60 .gl/bin/vigil-ph2 bench --workload draws --path vigil --path ash > $OUT/phases-2/r$r.txt 2> $OUT/phases-2/r$r.err
done
grep -h "submit: vigil/ash" $OUT/phases-2/r*.txt | head -3
timeout ${FUZZ_S:-400} .gl/bin/vigil-fuzz --seed 7100 --seeds 900 --calls 5000 --jobs 14 > $OUT/fuzz-7100.txt 2>&1
echo "fuzz rc=$? ${SECONDS}s" >> $OUT/fuzz-7100.txt
tail -2 $OUT/fuzz-7100.txt; grep -v "failed=0\|health=ok\|^seed " $OUT/fuzz-7100.txt | head -20
