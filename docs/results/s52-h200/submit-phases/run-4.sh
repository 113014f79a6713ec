# Session 52, run 4: where the draws frame's submission time goes, cd2005f's build
# against 7ad84f8's, both with timing marks in `Device::submit` (phases.patch here:
# session 43's marks, ../../s43-h200/submit-phases/, plus two around the command
# buffers' checks; it applies to both builds unchanged and is not committed to the
# library): `draws` through vigil and raw ash (the frame whose submission was 6%
# slower in run 3), the builds alternated, order rotating, four rounds. Each
# submission prints its marks (µs since the call began) on stderr.
rounds=${ROUNDS:-4}
cd .gl && tar -xJf tools/tools.tar.xz && for b in base s51; do xz -dkf bin/vigil-ph-$b.xz; chmod +x bin/vigil-ph-$b; done && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p /tmp/out4
for r in $(seq 1 $rounds); do
  order="base s51"; [ $((r % 2)) = 0 ] && order="s51 base"
  for b in $order; do
    timeout 100 .gl/bin/vigil-ph-$b bench --workload draws --path vigil --path ash > /tmp/out4/$b-r$r.txt 2> /tmp/out4/$b-r$r.err
    echo "== $b r$r ${SECONDS}s: $(grep -E 'submit: vigil/ash' /tmp/out4/$b-r$r.txt | sed 's/ \{2,\}/ /g' | tr '\n' ';') $(grep -c PHASES /tmp/out4/$b-r$r.err) marked" | tee -a /tmp/out4/summary.txt
  done
done
tar -cJf $OUT/run-4.tar.xz -C /tmp/out4 .
