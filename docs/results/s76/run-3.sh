# Session 76's H200 try: a full bench of 37a0ffe's build (`vigil-s74b`) for the H200
# table, only on an H200 (on another card it prints the card and stops). spirv-val goes
# on the path for tier-draws (run 2, on an H100, was first started without it and
# tier-draws refused its pipeline). Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s76/run-3.sh > $OUT/run-3.log 2>&1; tail -30 $OUT/run-3.log
set -u
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
[[ $card == *H200* ]] || exit 0
mkdir -p /tmp/b
for b in vigil-s74b spirv-val; do xz -dc .gl/bin/$b.sxz > /tmp/b/$b && chmod +x /tmp/b/$b; done
export PATH=/tmp/b:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/machine.txt
lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a $OUT/machine.txt
(vulkaninfo 2>/dev/null | grep -iE 'textureCompression' | head -6) | tee $OUT/features.txt
timeout 250 /tmp/b/vigil-s74b bench --save $OUT/full.json > $OUT/full.txt 2>&1
echo "bench rc=$? ${SECONDS}s"
grep -E 'targets met|NOT MET|  met ' $OUT/full.txt
