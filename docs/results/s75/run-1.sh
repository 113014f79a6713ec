# Session 75's device run. On an H200: a full bench of 37a0ffe's build (`vigil-s74b`, the
# short paths of session 74), for the H200 table, then session 74's prepared
# ../s74/run-2.sh in the time left. On another card: run-2.sh alone (its alternated draws
# and dispatches rounds of 37a0ffe against 0e0d315 are a pair on one machine, whatever
# the card). Same `.gl` as packed at the end of session 74 (../s74/README.md). The bench's
# results come back in full.tar.xz, run 2's in run-2.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s75/run-1.sh > $OUT/run-1.log 2>&1; tail -40 $OUT/run-1.log
set -u
limit=${LIMIT:-540}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
if [[ $card == *H200* ]] && [ "$limit" -ge 200 ]; then
  xz -dc .gl/bin/vigil-s74b.sxz > .gl/bin/vigil-s74b && chmod +x .gl/bin/vigil-s74b
  res=$(mktemp -d)
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
  lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a $res/machine.txt
  timeout 200 .gl/bin/vigil-s74b bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
  grep -E 'targets met|NOT MET|  met ' $res/full.txt
  tar -C "$res" -cJf $OUT/full.tar.xz .
fi
LIMIT=$((limit - SECONDS)) bash docs/results/s74/run-2.sh
