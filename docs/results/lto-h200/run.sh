# Session 38: the library at 0b07809 built two ways, alternated: `base` = `cargo build
# --release -p vigil-cli --features bench` (the profile every figure before this used),
# `lto` = the same with CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
# (whole-program LTO, one codegen unit; built as a `release-lto` profile that was not kept).
# Both binaries stripped of debug info and carried in .gl/bin. Paired, 41 repetitions,
# timed threads pinned.
for r in 1 2 3; do for b in base lto; do for w in draws dispatches churn; do
  timeout 60 .gl/bin/vigil-$b bench --workload $w > $OUT/$w-$b-r$r.txt 2>&1
  echo "== $w $b r$r ${SECONDS}s: $(grep -E ': vigil/ash ' $OUT/$w-$b-r$r.txt | tr -s ' ' | tr '\n' ';')"
done; done; done
for r in 1 2; do for b in base lto; do
  timeout 60 .gl/bin/vigil-$b bench --workload parallel-record > $OUT/par-$b-r$r.txt 2>&1
  echo "== par $b r$r ${SECONDS}s: $(grep -E 'vigil rate x8/x1 |record x1: vigil/ash' $OUT/par-$b-r$r.txt | tr -s ' ' | tr '\n' ';')"
done; done
for r in 1 2; do for b in base lto; do
  [ $SECONDS -lt 460 ] || continue
  timeout 70 .gl/bin/vigil-$b bench --workload writes > $OUT/writes-$b-r$r.txt 2>&1
  echo "== writes $b r$r ${SECONDS}s: $(grep -E 'vigil ns per write call|write: vigil/ash|total: vigil/ash' $OUT/writes-$b-r$r.txt | head -3 | tr -s ' ' | tr '\n' ';')"
done; done
cd $OUT && tar -cJf runs.tar.xz *.txt && rm -f *.txt
