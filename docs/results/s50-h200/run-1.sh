# Session 50, run 1, at 8ceca80: a longer fuzz campaign on the H200 than the usual 96
# seeds (validation layer on, as always): seeds 6000-6959, 5,000 calls each, 14 jobs.
# Each failing seed is run again alone with its trace. Everything comes back in one archive.
cd .gl && xz -dkf bin/vigil-fuzz.xz && chmod +x bin/vigil-fuzz && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p /tmp/out
timeout 420 .gl/bin/vigil-fuzz --seed 6000 --seeds 960 --calls 5000 --jobs 14 > /tmp/out/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> /tmp/out/fuzz.txt
tail -2 /tmp/out/fuzz.txt
for s in $(grep FUZZ-RESULT /tmp/out/fuzz.txt | grep -v 'panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok' | sed 's/.*seed=\([0-9]*\).*/\1/' | head -5); do
  grep "FUZZ-RESULT seed=$s " /tmp/out/fuzz.txt
  timeout 60 .gl/bin/vigil-fuzz --seed $s --seeds 1 --calls 5000 --trace > /tmp/out/fuzz-$s.txt 2>&1; xz /tmp/out/fuzz-$s.txt
done
tar -cJf $OUT/run-1.tar.xz -C /tmp/out .
