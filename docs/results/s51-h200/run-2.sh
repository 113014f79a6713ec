# Session 51, run 2: one full `vigil bench --save` run of the session's build (the
# library of its closing commit), for the docs' tables (python3
# docs/results/targets-table.py full.json docs/results/full-h200-1311666.json).
# glslc (the tier-draws workload compiles GLSL) comes from the carried tools; without
# them the bench stops at tier-draws (session 52's first try did).
cd .gl && tar -xJf tools/tools.tar.xz && xz -dkf bin/vigil-s51.xz && chmod +x bin/vigil-s51 && cd ..
export PATH=$PWD/.gl/tools:$PATH LD_LIBRARY_PATH=$PWD/.gl/tools:$LD_LIBRARY_PATH
mkdir -p /tmp/out
timeout 585 .gl/bin/vigil-s51 bench --save /tmp/out/full.json > /tmp/out/full.txt 2>&1; echo "bench rc=$? ${SECONDS}s" >> /tmp/out/full.txt
grep -A20 "^targets" /tmp/out/full.txt; tail -1 /tmp/out/full.txt
tar -cJf $OUT/run-2.tar.xz -C /tmp/out .
