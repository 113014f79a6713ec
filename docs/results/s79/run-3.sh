# Session 79's short last run, for the device time left (about 390 s with a machine's
# start): only the suite's indirect_checked and render executables, packed at d78b73e
# (ebc60cf: indexed indirect draws' index ranges checked on the GPU; the test draws 12
# argument sets four ways and reads the pixels back), under the validation layer.
# Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s79/run-3.sh > $OUT/run-3.log 2>&1; tail -20 $OUT/run-3.log
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/s79
tar -xJf .gl/tests-s79.tar.xz -C /tmp/s79 --wildcards 'tests/indirect_checked-*' 'tests/render-*'
for t in /tmp/s79/tests/*; do
  s=$SECONDS
  out=$(VIGIL_EXPECT_COMPUTE_QUEUE=1 timeout -k 5 60 "$t" --test-threads=1 2>&1); rc=$?
  echo "$(basename "$t"): rc=$rc $((SECONDS - s))s $(echo "$out" | grep -E '^test result' | tail -1)"
  echo "$out" | grep -E '^test |FAILED|panicked' | head -40
done
