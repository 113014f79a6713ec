# Session 51, run 1 (prepared for the next machine session; built here at the commit the
# session's closing note names): the packed test suite of the vigil crate (release,
# --all-features; glslc, spirv-val, spirv-cross carried), with VIGIL_EXPECT_COMPUTE_QUEUE
# set so compute_queue.rs must use the H200's async compute family (its new test writes
# and reads a heap texture there); then the fuzzer over 96 new seeds, and seeds 6398 and
# 22482 run alone (the numbers of the H200's and lavapipe's heap findings; session 51's
# recipe and heap draws changed the fuzzer's streams, so these are not the original
# call sequences, which gpu_heaps.rs's tests keep). One archive comes back.
cd .gl && tar -xJf tools/tools.tar.xz && tar -xJf tests.tar.xz && xz -dkf bin/vigil-fuzz.xz && chmod +x bin/vigil-fuzz && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
export VIGIL_EXPECT_COMPUTE_QUEUE=1
mkdir -p /tmp/out
PER=100 timeout 300 .gl/tests/run-all.sh > /tmp/out/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> /tmp/out/tests.txt
tail -1 /tmp/out/tests.txt; grep -c "rc=0 " /tmp/out/tests.txt; grep -v "rc=0 " /tmp/out/tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 7000 --seeds 96 --calls 5000 --jobs 14 > /tmp/out/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> /tmp/out/fuzz.txt
tail -2 /tmp/out/fuzz.txt
for s in 6398 22482; do timeout 30 .gl/bin/vigil-fuzz --seed $s --seeds 1 --calls 5000 | tail -1; done > /tmp/out/replays.txt 2>&1
cat /tmp/out/replays.txt
tar -cJf $OUT/run-1.tar.xz -C /tmp/out .
