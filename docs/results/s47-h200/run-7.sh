# Session 47, seventh machine session on the H200, at ce04c98 (136c87d reverted; the copy
# kernel's windows tracked as bound; a sixth of the fuzzer's seeds align windows at 256
# bytes): the kernel_copies tests (release, --all-features) and the fuzzer over the seeds
# of run-6.sh (5700 on, where seed 5746 had found the whole-buffer windows' hazard).
source .gl/enter.sh
cd .gl && xz -dk bin/*.xz && chmod +x bin/* && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
timeout 120 .gl/bin/kernel_copies > $OUT/h-kernel-copies.txt 2>&1; echo "kernel_copies rc=$? ${SECONDS}s" >> $OUT/h-kernel-copies.txt
grep -E "^test |test result|rc=" $OUT/h-kernel-copies.txt
timeout 120 .gl/bin/vigil-fuzz --seed 5700 --seeds 96 --calls 5000 --jobs 8 > $OUT/h-fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> $OUT/h-fuzz.txt
tail -2 $OUT/h-fuzz.txt; grep -v 'failed=0\|health=ok\|^seed' $OUT/h-fuzz.txt | head
cd $OUT && tar -czf s47-7.tgz *.txt && rm -f *.txt
