# Session 50, run 2, at f27eabf (library of 95de1b2): the packed test suite of the vigil
# crate (release, --all-features; glslc, spirv-val, spirv-cross carried), the fuzzer over
# 96 seeds that include seed 6398 (run 1's finding) and that seed replayed with its trace,
# then one full `vigil bench --save` run. Everything comes back in one archive.
cd .gl && tar -xJf tools/tools.tar.xz && tar -xJf tests.tar.xz && for b in s50 fuzz; do xz -dkf bin/vigil-$b.xz; chmod +x bin/vigil-$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p /tmp/out
PER=100 timeout 240 .gl/tests/run-all.sh > /tmp/out/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> /tmp/out/tests.txt
tail -1 /tmp/out/tests.txt; grep -c "rc=0 " /tmp/out/tests.txt; grep -v "rc=0 " /tmp/out/tests.txt | head -20
timeout 100 .gl/bin/vigil-fuzz --seed 6350 --seeds 96 --calls 5000 --jobs 14 > /tmp/out/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> /tmp/out/fuzz.txt
tail -2 /tmp/out/fuzz.txt
timeout 30 .gl/bin/vigil-fuzz --seed 6398 --seeds 1 --calls 5000 --trace > /tmp/out/fuzz-6398.txt 2>&1; xz /tmp/out/fuzz-6398.txt
timeout $((585-SECONDS)) .gl/bin/vigil-s50 bench --save /tmp/out/full.json > /tmp/out/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> /tmp/out/full.txt
grep -A20 "^targets" /tmp/out/full.txt; tail -1 /tmp/out/full.txt
tar -cJf $OUT/run-2.tar.xz -C /tmp/out .
