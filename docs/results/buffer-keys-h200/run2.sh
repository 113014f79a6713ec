# Session 38, batch 2: whether the change moved recording (a tracked buffer is 12 bytes
# larger and copies its key when first met): `base` (0b07809's library) and `new` (d32c602)
# alternated, parallel-record and churn two rounds, draws two. Paired, 41 repetitions.
cd .gl && tar -xJf tests.tar.xz bin && cd ..
cp .gl/bin2/vigil-base .gl/bin/
for r in 1 2; do for b in base new; do
  timeout 60 .gl/bin/vigil-$b bench --workload parallel-record > $OUT/par-$b-r$r.txt 2>&1
  echo "== par $b r$r ${SECONDS}s: $(grep -E 'vigil rate x8/x1 |record x1: vigil/ash' $OUT/par-$b-r$r.txt | tr -s ' ' | tr '\n' ';')"
  for w in churn draws; do
    timeout 60 .gl/bin/vigil-$b bench --workload $w > $OUT/$w-$b-r$r.txt 2>&1
    echo "== $w $b r$r ${SECONDS}s: $(grep -E ': vigil/ash ' $OUT/$w-$b-r$r.txt | grep -v wgpu | tr -s ' ' | tr '\n' ';')"
  done
done; done
cd $OUT && tar -cJf runs2.tar.xz *.txt && rm -f *.txt
