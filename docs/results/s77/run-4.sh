# The next session's first device run, prepared in session 77 (whose device time ran out
# before it could run). On an H200 (and LIMIT >= 330), first: a full bench of 12e7b91's
# build (`vigil-s77a`: c846f11's library; the bench names its commit and records its host
# and each workload's load) for the H200 table. On any card: the suite packed at 7a9b999
# (c846f11's library, which no GPU had run; the tests as of 4d5853c); on another card the
# same bench after it; then the fuzzer of the same library from seed 19384 in the time
# left. Everything comes back in run-4.tar.xz (a device run returns at most 8 files),
# packed again after each part so a kill keeps what finished. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s77/run-4.sh > $OUT/run-4.log 2>&1; tail -30 $OUT/run-4.log
set -u
limit=${LIMIT:-540}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
mkdir -p /tmp/b
for b in vigil-s77a spirv-val vigil-fuzz; do xz -dc .gl/bin/$b.sxz > /tmp/b/$b && chmod +x /tmp/b/$b; done
(cd .gl && tar -xJf tests.tar.xz)
export PATH=/tmp/b:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-4.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a $res/machine.txt
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
bench() {
  (vulkaninfo 2>/dev/null | grep -iE 'textureCompression' | head -6) | tee $res/features.txt
  timeout 250 /tmp/b/vigil-s77a bench --save $res/full.json > $res/full.txt 2>&1
  echo "bench rc=$? ${SECONDS}s"
  grep -E 'targets met|NOT MET|  met ' $res/full.txt
}
h200=no; [[ $card == *H200* ]] && h200=yes
if [[ $h200 == yes ]] && room 330; then
  bench
fi
pack
if room 140; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 150 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
# On another card the same bench after the suite: the current library's table there, with
# its host and load recorded.
if [[ $h200 == no ]] && room 320; then
  bench
fi
pack
if room 60; then
  timeout $((limit - SECONDS - 10)) /tmp/b/vigil-fuzz --seed ${SEED:-19384} --seeds $(( (limit - SECONDS - 20) * 2 )) --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s"
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
