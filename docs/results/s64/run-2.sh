# Session 64's second device run, at 8107edf as run 1, now with glslc carried
# and spirv-val (docs/results/gpu-tools.sh; the first try of this run had glslc only): run 1's six executables that failed for want of glslc (the
# GPU-pointer tier's pipelines), then the full bench, which stopped at tier-draws in run 1.
# Outputs into $OUT/run-2.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s64/run-2.sh > $OUT/run-2.log 2>&1; tail -16 $OUT/run-2.log
set -u
cd .gl && tar -xJf tests.tar.xz && xz -dc bin/vigil-s64a.sxz > bin/vigil-s64a && chmod +x bin/vigil-s64a && xz -dc bin/spirv-val.xz > bin/spirv-val && chmod +x bin/spirv-val && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
glslc --version | head -1 | tee -a $res/machine.txt; spirv-val --version | head -1 | tee -a $res/machine.txt
for t in compute_queue gpu_heaps gpu_pointers mesh rules_bundles rules_gpu; do
  exe=$(ls .gl/tests/$t-* | head -1)
  VIGIL_EXPECT_COMPUTE_QUEUE=1 timeout 100 $exe --test-threads=1 > $res/$t.txt 2>&1; rc=$?
  echo "$t: rc=$rc $(grep -E '^test result' $res/$t.txt | tail -1)" | tee -a $res/tests.txt
done
grep -E 'FAILED|panicked' $res/*.txt | head -8
pack
timeout 400 .gl/bin/vigil-s64a bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
pack
echo "done ${SECONDS}s"
