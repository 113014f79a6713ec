# Session 49, run 5, at 80035da (a sampled depth-stencil view names one aspect): the packed
# test suite of the vigil crate (release, --all-features), seed 5047 replayed with its
# trace, then the fuzzer over run 4's 96 seeds (5000-5095) again. One archive comes back.
cd .gl && tar -xJf tests.tar.xz && xz -dkf bin/vigil-fuzz.xz && chmod +x bin/vigil-fuzz && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p /tmp/out
PER=100 timeout 240 .gl/tests/run-all.sh > /tmp/out/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> /tmp/out/tests.txt
tail -1 /tmp/out/tests.txt; grep -c "rc=0 " /tmp/out/tests.txt; grep -v "rc=0 " /tmp/out/tests.txt | head -20
timeout 60 .gl/bin/vigil-fuzz --seed 5047 --seeds 1 --calls 5000 --jobs 1 --trace > /tmp/out/fuzz-5047.txt 2>&1; echo "replay rc=$? ${SECONDS}s" >> /tmp/out/fuzz-5047.txt
grep -E "GroupViewAspect|group.view-aspect" /tmp/out/fuzz-5047.txt | head -3; tail -2 /tmp/out/fuzz-5047.txt
timeout 120 .gl/bin/vigil-fuzz --seed 5000 --seeds 96 --calls 5000 --jobs 8 > /tmp/out/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> /tmp/out/fuzz.txt
tail -2 /tmp/out/fuzz.txt
xz -9 /tmp/out/fuzz-5047.txt; cp /tmp/out/tests.txt /tmp/out/fuzz.txt $OUT/; cp /tmp/out/fuzz-5047.txt.xz $OUT/
