# Session 39, experiment B: `base` = 485a616's library, `new` = the same with color and
# depth attachments cleared on a recording's first use of them carrying their own barrier
# (from Undefined, in the pass's command buffer), so the draws frame is submitted with
# no head. Alternated six rounds, `--workload draws --path vigil --path ash`, 41 paired
# repetitions each, timed threads pinned; then the demo on the new build.
for r in 1 2 3 4 5 6; do for b in base new; do
  timeout 60 .gl/bin/vigil-$b bench --workload draws --path vigil --path ash > $OUT/draws-$b-r$r.txt 2>&1
  echo "== draws $b r$r ${SECONDS}s: $(grep -E 'submit: vigil/ash |encode: vigil/ash |  submit     (vigil|ash) ' $OUT/draws-$b-r$r.txt | tr -s ' ' | tr '\n' ';')"
done; done
timeout 120 .gl/bin/vigil-new demo --out $OUT/demo > $OUT/demo-new.txt 2>&1; echo "demo rc=$? $(tail -3 $OUT/demo-new.txt | tr '\n' ';')"
rm -rf $OUT/demo
cd $OUT && tar -cJf runs-b.tar.xz *.txt && rm -f *.txt
