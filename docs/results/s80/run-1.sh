# Session 80's device run: session 79's run 2 script with the suite packed at 017650e
# (`tests-s80.tar.xz`: indirect checks in runs, a check in place waiting for earlier indirect reads, checked multi-draws in one native command,
# the 1,500-draw pixel test; session 79's indexed-indirect checks, none of it run on a GPU
# yet) and 017650e's fuzzer (`bin/vigil-fuzz.sxz`, replacing c6290ef's). On an H200 the
# full bench of 12e7b91's build first (the H200 table; nothing since touches the paths it
# times), then the suite and the fuzzer from seed 19872. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s80/run-1.sh > $OUT/run-1.log 2>&1; tail -30 $OUT/run-1.log
NAME=${NAME:-run-1} SUITE=tests-s80.tar.xz LIMIT=${LIMIT:-540} bash "$(dirname "$0")/../s79/run-2.sh"
