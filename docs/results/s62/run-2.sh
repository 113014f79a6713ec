# Session 62's second device run, with the first's binaries (2d5f8c8): what went wrong in
# run 1, one piece at a time, on a fresh machine. Run 1's `render` executable printed one
# failed test (multi_draw_indirect_count_draws_as_many_as_the_gpu_reads) and then ran out its
# time with no report; the bench after it stalled and fuzz seed 9638 lost its device. So:
# seed 9638 alone first (traced), then render's tests one at a time, the two multi-draw
# tests last, each with its output, and the executables run 1 never reached. Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s62/run-2.sh > $OUT/run-2.log 2>&1; tail -40 $OUT/run-2.log
set -u
cd .gl && tar -xJf tests.tar.xz && xz -dc bin/vigil-fuzz.sxz > bin/vigil-fuzz && chmod +x bin/vigil-fuzz && cd ..
res=$(mktemp -d)
pack() { tar -C "$res" -cJf $OUT/run-2.tar.xz .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $res/machine.txt
timeout 90 .gl/bin/vigil-fuzz --seed 9638 --calls 5000 --trace > $res/fuzz-9638.txt 2>&1; echo "fuzz 9638 rc=$? ${SECONDS}s"
grep -E "FUZZ-RESULT|FUZZ-FINDING" $res/fuzz-9638.txt | head -6
pack
R=$(ls .gl/tests/render-*)
$R --list 2>/dev/null | sed -n 's/: test$//p' > $res/render-list.txt
for t in $(grep -v multi_draw $res/render-list.txt) $(grep multi_draw $res/render-list.txt); do
  s=$SECONDS
  timeout -k 5 30 $R --exact $t --test-threads=1 --nocapture > $res/render-$t.txt 2>&1; rc=$?
  echo "render $t rc=$rc $((SECONDS-s))s"
  [ $rc -ne 0 ] && grep -E "panicked|assert|left|right|VUID|lost" $res/render-$t.txt | head -8
  pack
  if [ "$t" = "$(grep -v multi_draw $res/render-list.txt | tail -1)" ]; then
    for e in shader_features shared_textures shared_textures_device surfaces textures threads timeline timestamps validation_plumbing vigil vigil_graph vigil_vulkan; do
      x=$(ls .gl/tests/$e-* 2>/dev/null | head -1); [ -n "$x" ] || continue
      s=$SECONDS; out=$(timeout -k 5 40 $x --test-threads=1 2>&1); rc=$?
      echo "$e rc=$rc $((SECONDS-s))s $(echo "$out" | grep -E '^test result' | tail -1)"
      [ $rc -ne 0 ] && echo "$out" | grep -E 'FAILED|panicked' | head -5
    done
  fi
done
pack
echo "done ${SECONDS}s"
