# Prepared in session 73 for the next session's first device run (not run in session 73:
# its device time ran out): the suite, a full bench and the fuzzer of the kept library
# with small buffers in slabs, on an H200 if one comes (the targets table is the H200's;
# on an H100 it is a run to compare with session 73's rounds, not the table). `.gl` as
# packed at the end of session 73 (its README): `.gl/bin/vigil-s73f.sxz` (the bench), the
# suite's archive and the fuzzer, all of the session's last library commit, and
# `vigil-s73m.sxz` (943fee9's code: every buffer its own allocation) for three alternated
# rounds of churn against it on the same machine. Everything
# comes back in one archive (a device run returns at most 8 files). Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=560 bash docs/results/s73/run-5.sh > $OUT/run-5.log 2>&1; tail -40 $OUT/run-5.log
set -u
limit=${LIMIT:-560}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
for b in vigil-s73f vigil-s73m spirv-val vigil-fuzz; do xz -dc .gl/bin/$b.sxz > .gl/bin/$b && chmod +x .gl/bin/$b; done
(cd .gl && tar -xJf tests.tar.xz)
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-5.tar.xz .; }
which glslc spirv-val
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)|L1i|L1d|L2|L3' | tee -a $res/machine.txt
if room 200; then
  timeout 200 .gl/bin/vigil-s73f bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
  grep -E 'targets met|NOT MET|  met ' $res/full.txt
fi
pack
mkdir -p $res/ab
for r in 1 2 3; do
  room 180 || break
  if [ $r = 2 ]; then order="f m"; else order="m f"; fi
  for v in $order; do
    timeout 60 .gl/bin/vigil-s73$v bench --workload churn --path vigil --path ash > $res/ab/r$r-$v-churn.txt 2>&1
    echo "churn r$r $v rc=$? ${SECONDS}s: $(grep -h ': vigil/ash  ' $res/ab/r$r-$v-churn.txt | awk '{print $1, $3, $4, $5}' | tr '\n' ' ')"
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
  timeout $((limit - SECONDS - 10)) .gl/bin/vigil-fuzz --seed ${SEED:-17502} --seeds $(( (limit - SECONDS - 20) * 2 )) --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s"
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
