# Session 69's second device run, prepared and NOT RUN: the session's device time ran out
# before a machine could be started for it (failed starts cost device time too). Kept for
# the next session. Its question: why 9fd97ab's dispatches encode slower than 583e988's on
# run 1's H200 when the guard's loop runs faster on the development machine. The guard's
# dispatch and draw loops timed on the test backend (`vigil-count time`, 20 runs each) for
# b482144 (vigil-count-s68) and 9fd97ab (vigil-count-s69), alternated three times; then
# draws and dispatches through vigil and raw ash, alternated between four bench binaries
# for ROUNDS rounds (default 8): vigil-s68k (583e988), vigil-s69 (9fd97ab), vigil-s69na
# (9fd97ab with the tracker's entries not aligned to 64 bytes) and vigil-s69ga (9fd97ab with
# the groups' records not aligned to 64 bytes). Outputs into $OUT/run-2.tar.xz. Carry [".gl"]:
#   source .gl/enter.sh; LIMIT=240 bash docs/results/s69/run-2.sh > $OUT/run-2.log 2>&1; tail -30 $OUT/run-2.log
set -u
limit=${LIMIT:-240}
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }
B=(s68k s69 s69na s69ga)
cd .gl && for b in vigil-count-s68 vigil-count-s69 vigil-s68k vigil-s69 vigil-s69na vigil-s69ga; do xz -dc bin/$b.*xz > bin/$b; chmod +x bin/$b; done && cd ..
export PATH=$PWD/.gl/bin:$PATH
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)|L1d|L2|L3' | tee $res/cpu.txt
for r in 1 2 3; do
  for c in s68 s69; do
    for w in dispatch draw; do
      echo "count-$c r$r $(timeout 30 .gl/bin/vigil-count-$c time $w 20 2>&1 | tail -1)" | tee -a $res/count-time.txt
    done
  done
done
pack
line() { grep -E '(encode|submit): vigil/ash' $1 | grep -vE 'NOT MET|^ +met ' | sed 's/ \{2,\}/ /g' | tr '\n' ';'; }
mkdir -p $res/ab
for r in $(seq 1 ${ROUNDS:-8}); do
  room 20 || break
  for i in 0 1 2 3; do
    b=${B[$(( (i + r) % 4 ))]}
    f=$res/ab/$b-r$r
    timeout 60 .gl/bin/vigil-$b bench --workload draws --workload dispatches --path vigil --path ash > $f.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(line $f.txt)" | tee -a $res/ab-summary.txt
  done
done
if command -v python3 > /dev/null; then
  for pair in "s69 s68k" "s69na s68k" "s69ga s68k" "s69na s69" "s69ga s69"; do
    python3 docs/results/s53-h200/ab.py $res/ab-summary.txt $pair | tee -a $res/ab-ratios.txt
  done
fi
pack
echo "done ${SECONDS}s"
