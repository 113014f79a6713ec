# Session 47, eighth machine session on the H200: the CPU time of recording a copy, by
# the copy command and by vigil's copy kernel (kcbench-main.rs, built against ce04c98's
# vigil with test-seams: the seam armed from 16 bytes, or out of reach), 20 timed
# recordings alternated, median per copy.
source .gl/enter.sh
cd .gl && xz -dk bin/kcbench.xz && chmod +x bin/kcbench && cd ..
for a in "10000 4096" "10000 65536" "1000 1048576"; do
  echo "== $a"; timeout 60 .gl/bin/kcbench $a 2>&1 | tee -a $OUT/kcbench.txt
done
