# Prepared at the end of session 79 for the next session's first device run: run 2's
# script with the suite packed at 1255caf (`tests-s79b.tar.xz`: indexed indirect draws'
# index ranges checked on the GPU, counted draws checked draw by draw where first
# instances are, each with its pixel test; none of it run on a GPU yet), c6290ef's fuzzer
# (9f3f1c9 after it changed no stream) and a limit of 540 s: on an H200 the full bench of
# 12e7b91's build first (the H200 table), then the suite and the fuzzer from seed 19872.
# Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s79/run-4.sh > $OUT/run-4.log 2>&1; tail -30 $OUT/run-4.log
NAME=run-4 SUITE=tests-s79b.tar.xz LIMIT=${LIMIT:-540} bash "$(dirname "$0")/run-2.sh"
