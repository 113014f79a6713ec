# Session 61's second device run: vigil's `render` test executable alone, packed at the
# multi-draw commit (its new test draws three quads by one multi_draw_indirect call, with
# MULTI_DRAW_INDIRECT as one native command, without it as one per draw, and without
# INDIRECT_FIRST_INSTANCE each draw checked on the GPU apart; run 1's suite, at 26f69fb,
# had the rest). Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s61/run-2.sh > $OUT/run-2.log 2>&1; tail -8 $OUT/run-2.log
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -xJf .gl/tests.tar.xz -C .gl
OUT= PER=120 timeout 150 .gl/tests/run-all.sh; echo "suite rc=$?"
