# Session 62's third device run. By its serials, run 2 hung in the case of the counted-draw
# test whose count buffer holds u32::MAX with at most 2 draws: the count was given to the
# driver as it was. The working tree now clamps the count on the GPU in front of the pass and
# the draw reads the clamped copy. Carry [".gl"] holding, at the working tree after 3f16d7b
# with the clamp: `render` (the statistics test's vertex-count assertion mended) and
# `diag_count` (a local test file, not committed: counted draws of at most 2 whose buffer
# holds 2, 1,000, 2^20, 2^26 and u32::MAX, each timed); and `diag_old`, the same tests built
# before the clamp, run last, stopping at the first that fails (a hung GPU spoils what runs
# after it), to see whether the time grows with the count:
#   source .gl/enter.sh; bash docs/results/s62/run-3.sh > $OUT/run-3.log 2>&1; tail -40 $OUT/run-3.log
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=$(ls .gl/tests/render-*); D=$(ls .gl/tests/diag_count-*); O=.gl/tests/diag_old; chmod +x $O
for t in $($R --list 2>/dev/null | sed -n 's/: test$//p'); do
  s=$SECONDS; timeout -k 5 30 $R --exact $t --test-threads=1 --nocapture > $OUT/render-$t.txt 2>&1; rc=$?
  echo "render $t rc=$rc $((SECONDS-s))s"; [ $rc -ne 0 ] && grep -E "panicked|lost|left|right" $OUT/render-$t.txt | head -4
done
grep -h "one triangle" $OUT/render-pipeline_statistics*.txt
for t in a_count_2 b_count_1000 c_count_2_pow_20 d_count_2_pow_26 e_count_max; do
  s=$SECONDS; timeout -k 5 20 $D --exact $t --test-threads=1 --nocapture > $OUT/diag-$t.txt 2>&1; rc=$?
  echo "clamped $t rc=$rc $((SECONDS-s))s $(grep -hE "^$t:" $OUT/diag-$t.txt)"; [ $rc -ne 0 ] && grep -E "panicked|lost" $OUT/diag-$t.txt | head -3
done
for t in a_count_2 b_count_1000 c_count_2_pow_20 d_count_2_pow_26 e_count_max; do
  s=$SECONDS; timeout -k 5 20 $O --exact $t --test-threads=1 --nocapture > $OUT/old-$t.txt 2>&1; rc=$?
  echo "unclamped $t rc=$rc $((SECONDS-s))s $(grep -hE "^$t:" $OUT/old-$t.txt)"; [ $rc -ne 0 ] && { grep -E "panicked|lost" $OUT/old-$t.txt | head -3; break; }
done
echo "done ${SECONDS}s"
