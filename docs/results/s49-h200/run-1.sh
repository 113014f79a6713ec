# Session 49, run 1 (session 48's run-1.sh as is): 64-byte queue writes, builds alternated (order rotating each round),
# vigil and raw ash paths. Builds: .gl/bin/vigil-<name>.xz for each name given. Run from
# the checkout after `source .gl/enter.sh`; outputs go to $OUT.
builds="$*"; rounds=${ROUNDS:-3}
for b in $builds; do xz -dc .gl/bin/vigil-$b.xz > /tmp/vigil-$b && chmod +x /tmp/vigil-$b; done
for r in $(seq 1 $rounds); do
  order=$builds; [ $((r % 2)) = 0 ] && order=$(echo $builds | tr ' ' '\n' | tac | tr '\n' ' ')
  for b in $order; do
    timeout 100 /tmp/vigil-$b bench --workload writes --path vigil --path ash > $OUT/writes-$b-r$r.txt 2>&1
    echo "== $b r$r ${SECONDS}s: $(grep -E 'vigil ns per write call|total: vigil/ash' $OUT/writes-$b-r$r.txt | tr -s ' ' | tr '\n' ';')" | tee -a $OUT/summary.txt
  done
done
