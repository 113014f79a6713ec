# Session 75's first device run: session 74's prepared run-2.sh (../s74/run-2.sh) with a
# full bench of 37a0ffe's build (`vigil-s74b`) put first, for a table of the current
# recording path. Same `.gl` as packed at the end of session 74 (../s74/README.md).
# Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=560 bash docs/results/s75/run-1.sh > $OUT/run-1.log 2>&1; tail -40 $OUT/run-1.log
set -u
limit=${LIMIT:-540}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
for b in vigil-s73f vigil-s74b spirv-val vigil-fuzz; do xz -dc .gl/bin/$b.sxz > .gl/bin/$b && chmod +x .gl/bin/$b; done
(cd .gl && tar -xJf tests.tar.xz)
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a $res/machine.txt
mkdir -p $res/ab
if room 400; then
  timeout 200 .gl/bin/vigil-s74b bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
  grep -E 'targets met|NOT MET|  met ' $res/full.txt
fi
pack
for r in $(seq 1 ${ROUNDS:-10}); do
  room ${ROUND_ROOM:-220} || break
  if [ $((r % 2)) = 1 ]; then order="f b"; else order="b f"; fi
  for v in $order; do
    [ $v = f ] && exe=vigil-s73f || exe=vigil-s74b
    for w in ${WORKLOADS:-draws dispatches}; do
      timeout 60 .gl/bin/$exe bench --workload $w --path vigil --path ash > $res/ab/r$r-$v-$w.txt 2>&1
      echo "r$r $v $w rc=$? ${SECONDS}s: $(grep -h ': vigil/ash  ' $res/ab/r$r-$v-$w.txt | awk '{print $1, $3, $4, $5}' | tr '\n' ' ')"
    done
  done
done
pack
if room 140; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 150 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
if room 60; then
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-17994} --seeds $(( (limit - SECONDS - 20) * 2 )) --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s"
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
