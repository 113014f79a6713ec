# Session 41: the H200 guest's CPU topology, and parallel-record with the timed threads on
# the default list (highest first) against one CPU per core (when cores have siblings).
# Run from the checkout after `source .gl/enter.sh`; outputs go to $OUT.
lscpu > $OUT/lscpu.txt 2>&1; lscpu -e >> $OUT/lscpu.txt 2>&1
for c in /sys/devices/system/cpu/cpu[0-9]*; do echo "$(basename $c) $(cat $c/topology/thread_siblings_list) core=$(cat $c/topology/core_id) pkg=$(cat $c/topology/physical_package_id)"; done | sort -V > $OUT/siblings.txt
cat $OUT/siblings.txt
# One CPU per core, highest first: the highest CPU of each sibling set.
alt=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do cat $c/topology/thread_siblings_list; done | sort -u | awk -F'[,-]' '{print $NF}' | sort -rn | tr '\n' ',' | sed 's/,$//')
echo "one per core: $alt"
for r in 1 2; do
  for cfg in default alt; do
    if [ $cfg = alt ]; then arg="--cpus $alt"; else arg=""; fi
    timeout 150 .gl/bin/vigil-rba bench --workload parallel-record --path vigil --path ash $arg > $OUT/par-$cfg-r$r.txt 2>&1
    echo "== $cfg r$r ${SECONDS}s: $(grep -E 'pinned|rate x8/x1|record x1: vigil/ash' $OUT/par-$cfg-r$r.txt | tr -s ' ' | tr '\n' ';')"
  done
done
