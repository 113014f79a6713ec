# Session 38: `base` = 0b07809's library (the bench built with `cargo build --release -p
# vigil-cli --features bench`), `new` = the same with a command buffer's tracked buffers
# keeping their state-table key and their last use kept in the queue's table (a submission
# reads and writes no buffer object). Alternated: dispatches (1,000 buffers written a frame)
# and draws three rounds, writes one. Paired, 41 repetitions, timed threads pinned.
for r in 1 2 3; do for b in base new; do for w in dispatches draws; do
  timeout 60 .gl/bin/vigil-$b bench --workload $w > $OUT/$w-$b-r$r.txt 2>&1
  echo "== $w $b r$r ${SECONDS}s: $(grep -E 'submit: vigil/ash |encode: vigil/ash |  submit     (vigil|ash) ' $OUT/$w-$b-r$r.txt | tr -s ' ' | tr '\n' ';')"
done; done; done
for b in base new; do
  timeout 80 .gl/bin/vigil-$b bench --workload writes > $OUT/writes-$b.txt 2>&1
  echo "== writes $b ${SECONDS}s: $(grep -E 'vigil ns per write call|total: vigil/ash' $OUT/writes-$b.txt | head -2 | tr -s ' ' | tr '\n' ';')"
done
cd $OUT && tar -cJf runs.tar.xz *.txt && rm -f *.txt
