# Prepared at the end of session 79 for the next session's first device run: the suite
# packed at 1255caf (`tests-s79b.tar.xz`: indexed indirect draws' index ranges checked on
# the GPU, counted draws checked draw by draw where first instances are, each with its
# pixel test; none of it run on a GPU yet) and the fuzzer of c6290ef (huge indexed draw
# arguments in its stream; 9f3f1c9 after it changed no stream). On an H200 (and
# LIMIT >= 330), first: the full bench of 12e7b91's build (`vigil-s77a`, c846f11's
# library; nothing since touches the paths it times) for the H200 table. Then the suite
# (`VIGIL_EXPECT_COMPUTE_QUEUE` set) and the fuzzer from seed 19872 in the time left.
# Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s79/run-4.sh > $OUT/run-4.log 2>&1; tail -30 $OUT/run-4.log
set -u
limit=${LIMIT:-540}
name=run-4
res=$(mktemp -d)
source docs/results/device-run.sh
unpack tests-s79b.tar.xz vigil-s77a spirv-val vigil-fuzz
if [[ $card == *H200* ]] && room 330; then bench vigil-s77a 250; fi
pack
if room 140; then VIGIL_EXPECT_COMPUTE_QUEUE=1 suite 150; fi
if room 60; then fuzz "${SEED:-19872}"; fi
pack
echo "done ${SECONDS}s"
