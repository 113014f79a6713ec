# Session 58's fourth device run, at 973976e: the examples' tiles tests (.gl/examples-tests.tar.xz,
# packed by gpu-pack-tests.sh -p vigil-examples --test examples), among them the tiles drawn from
# a render bundle against the tiles drawn in the pass, validation layer on. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s58-h100/run-4.sh > $OUT/run-4.log 2>&1; tail -8 $OUT/run-4.log
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -xJf .gl/examples-tests.tar.xz -C .gl
exe=$(ls .gl/tests/examples-* | head -1)
timeout 300 "$exe" tiles --test-threads 1 2>&1 | grep -E "^test |test result"
echo "rc=$?"
