# Session 80's device run, prepared for the next session (no machine came in session 80).
# Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s80/run-1.sh > $OUT/run-1.log 2>&1; tail -30 $OUT/run-1.log
# On an H200 (and LIMIT >= 330), first the full bench of 12e7b91's build (`vigil-s77a`,
# c846f11's library; nothing since touches the paths it times) for the H200 table. Then on
# any card: the suite packed at 017650e (`tests-s80.tar.xz`: indexed indirect draws' index
# ranges checked on the GPU, the checks in runs, a check in place waiting for earlier
# indirect reads, checked multi-draws in one native command, the 1,500-draw pixel test;
# none of it run on a GPU yet), with `VIGIL_EXPECT_COMPUTE_QUEUE` set; `draws` and
# `draws-indirect` through 4f2c866's bench (`vigil-s80`: what the checks of indexed
# indirect draws cost, paired with raw ash and wgpu); then 017650e's fuzzer from seed 19872
# in the time left.
set -u
limit=${LIMIT:-540}
name=${NAME:-run-1}
res=$(mktemp -d)
source docs/results/device-run.sh
unpack tests-s80.tar.xz vigil-s77a vigil-s80 spirv-val vigil-fuzz
if [[ $card == *H200* ]] && room 330; then bench vigil-s77a 250; fi
pack
if room 140; then VIGIL_EXPECT_COMPUTE_QUEUE=1 suite 150; fi
if room 110; then
  timeout 90 /tmp/b/vigil-s80 bench --workload draws --workload draws-indirect --save "$res/draws-indirect.json" > "$res/draws-indirect.txt" 2>&1
  echo "draws-indirect rc=$? ${SECONDS}s"
  grep -A4 "paired" "$res/draws-indirect.txt" | head -12
  pack
fi
if room 60; then fuzz "${SEED:-19872}"; fi
pack
echo "done ${SECONDS}s"
