# Alternated rounds of two bench builds on this machine: bash rounds.sh A B ROUNDS, each
# build at /tmp/vb-NAME (stripped bench builds), outputs NAME-rN.txt in the working
# directory. Session 54 ran `rounds.sh new3 new4 10` (in rounds/) and
# `rounds.sh new4 new5 8` (in rounds2/).
a=$1 b=$2
for r in $(seq 1 "$3"); do
  if [ $((r % 2)) = 1 ]; then ord="$a $b"; else ord="$b $a"; fi
  for x in $ord; do
    /tmp/vb-$x bench --workload draws --workload dispatches --path vigil --path ash > $x-r$r.txt 2>&1
  done
done
