for r in $(seq 1 10); do
  if [ $((r % 2)) = 1 ]; then ord="new3 new4"; else ord="new4 new3"; fi
  for b in $ord; do
    /tmp/vb-$b bench --workload draws --workload dispatches --path vigil --path ash > $b-r$r.txt 2>&1
  done
done
echo done > done.txt
