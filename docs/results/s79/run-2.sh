# Session 79's second device run: the suite packed at d78b73e (ebc60cf's indexed indirect
# draws' index ranges checked on the GPU, with its test) and the fuzzer of c6290ef (huge
# indexed draw arguments in its stream), neither yet run on a GPU. On an H200 (and
# LIMIT >= 330), first: the full bench of 12e7b91's build (`vigil-s77a`, c846f11's library; nothing since touches the
# paths it times) for the H200 table. Then the suite (`VIGIL_EXPECT_COMPUTE_QUEUE` set)
# and the fuzzer from seed 19872 in the time left. `NAME` and `SUITE` name the results
# archive and the packed suite (run-4.sh sets them). Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=480 bash docs/results/s79/run-2.sh > $OUT/run-2.log 2>&1; tail -30 $OUT/run-2.log
set -u
limit=${LIMIT:-480}
name=${NAME:-run-2}
res=$(mktemp -d)
source docs/results/device-run.sh
unpack "${SUITE:-tests-s79.tar.xz}" vigil-s77a spirv-val vigil-fuzz
if [[ $card == *H200* ]] && room 330; then bench vigil-s77a 250; fi
pack
if room 140; then VIGIL_EXPECT_COMPUTE_QUEUE=1 suite 150; fi
if room 60; then fuzz "${SEED:-19872}"; fi
pack
echo "done ${SECONDS}s"
