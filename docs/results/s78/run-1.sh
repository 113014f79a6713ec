# Prepared in session 78, whose device calls started no machine: the next session's first
# device run. On an H200 (and LIMIT >= 330), first: the full bench of 12e7b91's build
# (`vigil-s77a`: c846f11's library; what came after does not touch the paths the bench
# times) for the H200 table. On any card: the suite packed at b980778 (headless surfaces;
# `VIGIL_EXPECT_COMPUTE_QUEUE` set); on another card the same bench after it; then the
# fuzzer of c627cd4 (headless surfaces, create_buffer_init, fewer needless refusals) from
# seed 19384 in the time left. Whether the driver has VK_EXT_headless_surface goes into
# machine.txt. Everything comes back in run-1.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s78/run-1.sh > $OUT/run-1.log 2>&1; tail -30 $OUT/run-1.log
set -u
limit=${LIMIT:-540}
name=run-1
res=$(mktemp -d)
source docs/results/device-run.sh
unpack tests-s78.tar.xz vigil-s77a spirv-val vigil-fuzz
(vulkaninfo 2>/dev/null | grep -iE 'headless_surface' || echo "no VK_EXT_headless_surface") | tee -a "$res/machine.txt"
h200=no; [[ $card == *H200* ]] && h200=yes
if [[ $h200 == yes ]] && room 330; then bench vigil-s77a 250; fi
pack
if room 140; then VIGIL_EXPECT_COMPUTE_QUEUE=1 suite 150; fi
if [[ $h200 == no ]] && room 320; then bench vigil-s77a 250; fi
if room 60; then fuzz "${SEED:-19384}"; fi
pack
echo "done ${SECONDS}s"
