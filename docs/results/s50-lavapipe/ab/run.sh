cd /tmp/lvpab
for r in 1 2 3 4; do
  order="base s50"; [ $((r % 2)) = 0 ] && order="s50 base"
  for b in $order; do
    f=/tmp/lvpab/$b-r$r.txt
    timeout 300 /tmp/ab/vigil-$b bench --workload draws --workload dispatches --path vigil --path ash > $f 2>&1
    echo "== $b r$r ${SECONDS}s: $(grep -E 'encode: vigil/ash|submit: vigil/ash' $f | head -4 | sed 's/ \{2,\}/ /g' | tr '\n' ';')" >> /tmp/lvpab/summary.txt
  done
done
echo done >> /tmp/lvpab/summary.txt
