# Session 69's device run. The suite and the fuzzer at 9fd97ab (a one-part buffer's tracker
# entry and a group's record one cache line each; 32-bit use numbers). Draws and dispatches
# through vigil and raw ash, alternated between two bench binaries (../bench-build.sh) for
# ROUNDS rounds (default 16): vigil-s68k (583e988, the recording path session 68 measured)
# and vigil-s69 (9fd97ab). Then a full bench of vigil-s69, then the fuzzer on seeds no run
# had used, from SEED (default 15400), with the time left. Outputs into $OUT/run-1.tar.xz.
# Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=540 bash docs/results/s69/run-1.sh > $OUT/run-1.log 2>&1; tail -40 $OUT/run-1.log
# Per-round ratios: python3 docs/results/s53-h200/ab.py ab-summary.txt s69 s68k
set -u
limit=${LIMIT:-540}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
B=(s68k s69)
cd .gl && tar -xJf tests.tar.xz && for b in vigil-fuzz spirv-val vigil-s68k vigil-s69; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-1.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
if room 130; then
  OUT= VIGIL_EXPECT_COMPUTE_QUEUE=1 PER=100 timeout 200 .gl/tests/run-all.sh > $res/tests.txt 2>&1; echo "suite rc=$? ${SECONDS}s" | tee -a $res/tests.txt
  echo "executables exited 0: $(grep -c ': rc=0 ' $res/tests.txt) of $(grep -c ': rc=' $res/tests.txt)"
  grep ': rc=' $res/tests.txt | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' $res/tests.txt | head -8
fi
pack
line() { grep -E '(encode|submit): vigil/ash' $1 | grep -vE 'NOT MET|^ +met ' | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
mkdir -p $res/ab
for r in $(seq 1 ${ROUNDS:-16}); do
  room 280 || break
  for i in 0 1; do
    b=${B[$(( (i + r) % 2 ))]}
    f=$res/ab/$b-r$r
    timeout 60 .gl/bin/vigil-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" | tee -a $res/ab-summary.txt
  done
done
if command -v python3 > /dev/null; then
  python3 docs/results/s53-h200/ab.py $res/ab-summary.txt s69 s68k | tee -a $res/ab-ratios.txt
fi
pack
# A full bench took 145 s on an H100 in session 64 (run 4).
if room 230; then
  timeout 210 .gl/bin/vigil-s69 bench --save $res/full.json > $res/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" | tee -a $res/full.txt
fi
pack
if room 40; then
  # About two seeds a second at 14 jobs (session 65: 288 in 136 s): as many as the time left takes.
  seeds=${SEEDS:-$(( (limit - SECONDS - 20) * 2 ))}
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-15400} --seeds $seeds --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
