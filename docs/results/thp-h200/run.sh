# Session 38: does the host's TLB explain vigil's fixed costs? The bench at d32c602 run as
# is (`plain`) and with glibc's malloc on transparent huge pages (`thp`:
# GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which every path's heap gets), alternated,
# draws, dispatches and parallel-record two rounds. Paired, 41 repetitions, pinned.
cd .gl && tar -xJf tests.tar.xz bin && cd ..
{ cat /sys/kernel/mm/transparent_hugepage/enabled; ldd --version | head -1; } > $OUT/thp-setting.txt 2>&1
for r in 1 2; do for c in plain thp; do for w in draws dispatches parallel-record; do
  if [ $c = thp ]; then export GLIBC_TUNABLES=glibc.malloc.hugetlb=1; else unset GLIBC_TUNABLES; fi
  timeout 60 .gl/bin/vigil-new bench --workload $w > $OUT/$w-$c-r$r.txt 2>&1
  echo "== $w $c r$r ${SECONDS}s: $(grep -E ': vigil/ash |vigil rate x8/x1 ' $OUT/$w-$c-r$r.txt | grep -v 'x2\|x4' | tr -s ' ' | tr '\n' ';')"
done; done; done
unset GLIBC_TUNABLES
cd $OUT && tar -cJf runs.tar.xz *.txt && rm -f *.txt
