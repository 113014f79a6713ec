# Session 64's fifth device run, binaries at 8f09402: the formats and dimensions test
# executables (BC6H blocks now decoded by a shader; 1D and 3D textures again), then the
# fuzzer (the tier's render and mesh pipelines now and then through caches) on seeds no run
# had used, from SEED (default 11111), with the time left. glslc and spirv-val carried.
# Outputs into $OUT/run-5.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s64/run-5.sh > $OUT/run-5.log 2>&1; tail -12 $OUT/run-5.log
set -u
limit=${LIMIT:-230}
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz spirv-val; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-5.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
for t in formats dimensions; do
  exe=$(ls .gl/tests/$t-* | head -1)
  timeout 60 $exe --test-threads=1 > $res/$t.txt 2>&1; rc=$?
  echo "$t: rc=$rc $(grep -E '^test result' $res/$t.txt | tail -1)" | tee -a $res/tests.txt
done
grep -E 'FAILED|panicked' $res/*.txt | head -8
pack
timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-11111} --seeds ${SEEDS:-192} --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
grep FUZZ-TOTAL $res/fuzz.txt
pack
echo "done ${SECONDS}s"
