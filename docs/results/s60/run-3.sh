# Session 60's third device run: the validation-plumbing test alone, packed after its
# deliberately invalid command became an overlapping copy (run 2's, a dispatch with no
# pipeline bound, crashed the NVIDIA driver's recording: the executable died with
# SIGSEGV). Carry [".gl"]:
#   source .gl/enter.sh; bash docs/results/s60/run-3.sh > $OUT/run-3.log 2>&1; tail -8 $OUT/run-3.log
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -xJf .gl/tests.tar.xz -C .gl
OUT= PER=60 timeout 120 .gl/tests/run-all.sh; echo "suite rc=$?"
