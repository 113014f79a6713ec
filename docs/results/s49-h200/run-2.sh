# Session 49, run 2: the build before this session (base, b5dfe17's library) against
# aee2602 (new2: the granted write's small frame and inline copy, set_bind_group's short
# path, one look per vertex or index buffer), alternated with the order rotating each
# round: draws, dispatches and writes, vigil and raw ash paths, 41 paired repetitions each.
# Run from the checkout after `source .gl/enter.sh`; outputs go to $OUT (one tarball).
builds="$*"; rounds=${ROUNDS:-6}
for b in $builds; do xz -dc .gl/bin/vigil-$b.xz > /tmp/vigil-$b && chmod +x /tmp/vigil-$b; done
mkdir -p /tmp/out
for r in $(seq 1 $rounds); do
  order=$builds; [ $((r % 2)) = 0 ] && order=$(echo $builds | tr ' ' '\n' | tac | tr '\n' ' ')
  for b in $order; do
    for w in draws dispatches writes; do
      f=/tmp/out/$w-$b-r$r.txt
      timeout 100 /tmp/vigil-$b bench --workload $w --path vigil --path ash > $f 2>&1
      echo "== $w $b r$r ${SECONDS}s: $(grep -E 'encode: vigil/ash|submit: vigil/ash|vigil ns per write call' $f | head -3 | tr -s ' ' | tr '\n' ';')" | tee -a /tmp/out/summary.txt
    done
  done
done
cp /tmp/out/summary.txt $OUT/; tar -cJf $OUT/run-2.tar.xz -C /tmp/out .
