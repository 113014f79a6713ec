# Session 48: the encoder's call count (97e97d9, one instruction a call) against the
# library without it (d34251f, bench of 50fc4ce), alternated in one machine session, two
# rounds of draws and parallel-record, 41 paired repetitions each.
source .gl/enter.sh
cd .gl && for b in vigil-fin vigil-s48; do xz -dkf bin/$b.xz; chmod +x bin/$b; done; cd ..
for r in 1 2; do
  order="s48 fin"; [ $r = 2 ] && order="fin s48"
  for b in $order; do
    for w in draws parallel-record; do
      timeout 100 .gl/bin/vigil-$b bench --workload $w > $OUT/ab-$b-$w-r$r.txt 2>&1
      echo "== $b $w r$r: $(grep -E 'encode: vigil/ash|record x1: vigil/ash|rate x8/x1' $OUT/ab-$b-$w-r$r.txt | grep -v NOT | grep -v met | tr -s ' ' | tr '\n' ';')"
    done
  done
done 2>&1 | tee $OUT/ab-log.txt
