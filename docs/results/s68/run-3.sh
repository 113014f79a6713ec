# Session 68's third device run: whether binding groups by a key the recording keeps
# (583e988, `vigil-s68k`) adds to the members' records alone (36b69a3, `vigil-s68`), which
# run 2 could not separate (0.986, 6 rounds of 10 lower). Draws and dispatches through vigil
# and raw ash, the two binaries alternated for ROUNDS rounds (default 16); then the fuzzer
# at 583e988's code on seeds no run had used, from SEED (default 14715), with the time left.
# Outputs into $OUT/run-3.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=330 bash docs/results/s68/run-3.sh > $OUT/run-3.log 2>&1; tail -12 $OUT/run-3.log
set -u
limit=${LIMIT:-330}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
B=(s68 s68k)
cd .gl && for b in vigil-fuzz vigil-s68 vigil-s68k; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-3.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
line() { grep -E '(encode|submit): vigil/ash' $1 | grep -vE 'NOT MET|^ +met ' | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
mkdir -p $res/ab
for r in $(seq 1 ${ROUNDS:-16}); do
  room 30 || break
  for i in 0 1; do
    b=${B[$(( (i + r) % 2 ))]}
    f=$res/ab/$b-r$r
    timeout 60 .gl/bin/vigil-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" | tee -a $res/ab-summary.txt
  done
done
command -v python3 > /dev/null && python3 docs/results/s53-h200/ab.py $res/ab-summary.txt s68k s68 | tee $res/ab-ratios.txt
pack
if room 40; then
  seeds=${SEEDS:-$(( (limit - SECONDS - 20) * 2 ))}
  timeout $((limit - SECONDS - 5)) .gl/bin/vigil-fuzz --seed ${SEED:-14715} --seeds $seeds --calls 5000 --jobs 14 > $res/fuzz.txt 2>&1; echo "fuzz rc=$? ${SECONDS}s" | tee -a $res/fuzz.txt
  grep FUZZ-TOTAL $res/fuzz.txt
  grep FUZZ-RESULT $res/fuzz.txt | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
fi
pack
echo "done ${SECONDS}s"
