for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then ord="new4 new5"; else ord="new5 new4"; fi
  for b in $ord; do
    /tmp/vb-$b bench --workload dispatches --path vigil --path ash > $b-r$r.txt 2>&1
    GLIBC_TUNABLES=glibc.malloc.tcache_count=0 /tmp/vb-$b bench --workload dispatches --path vigil --path ash > $b-t$r.txt 2>&1
  done
done
echo done > done.txt
