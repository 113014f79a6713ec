# Session 49, run 4, at d6e81fb: the packed test suite of the vigil crate (release,
# --all-features; glslc, spirv-val, spirv-cross carried), the fuzzer (96 seeds x 5,000
# calls), then the bench at d6e81fb (fin) against the build before the session (base,
# b5dfe17), alternated with the order rotating each round: draws, dispatches and writes,
# vigil and raw ash paths, 41 paired repetitions each. Everything comes back in one archive.
rounds=${ROUNDS:-4}
cd .gl && tar -xJf tests.tar.xz && for b in base fin fuzz; do xz -dkf bin/vigil-$b.xz; chmod +x bin/vigil-$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p /tmp/out
PER=100 timeout 240 .gl/tests/run-all.sh > /tmp/out/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" >> /tmp/out/tests.txt
tail -1 /tmp/out/tests.txt; grep -c "rc=0 " /tmp/out/tests.txt; grep -v "rc=0 " /tmp/out/tests.txt | head -20
timeout 120 .gl/bin/vigil-fuzz --seed 5000 --seeds 96 --calls 5000 --jobs 8 > /tmp/out/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" >> /tmp/out/fuzz.txt
tail -2 /tmp/out/fuzz.txt
for r in $(seq 1 $rounds); do
  order="base fin"; [ $((r % 2)) = 0 ] && order="fin base"
  for b in $order; do
    for w in draws dispatches writes; do
      f=/tmp/out/$w-$b-r$r.txt
      timeout 100 .gl/bin/vigil-$b bench --workload $w --path vigil --path ash > $f 2>&1
      echo "== $w $b r$r ${SECONDS}s: $(grep -E 'encode: vigil/ash|vigil ns per write call' $f | head -1 | tr -s ' ')" | tee -a /tmp/out/summary.txt
    done
  done
done
cp /tmp/out/summary.txt $OUT/; tar -cJf $OUT/run-4.tar.xz -C /tmp/out .
