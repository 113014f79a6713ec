# Session 43: vigil's own recording (the test backend) on 1-8 threads, cycling 10, 100 or
# 1,000 bind groups (each thread meets each group once per recording), alternated.
for r in 1 2 3; do
  for g in 10 100 1000; do
    timeout 100 .gl/bin/vigil-count threads 8 21 --groups $g > $OUT/threads-g$g-r$r.txt 2>&1
    echo "== groups $g r$r: $(tr '\n' ';' < $OUT/threads-g$g-r$r.txt)"
  done
done
