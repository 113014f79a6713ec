#!/usr/bin/env bash
# Runs `vigil bench --quick --workload draws --path vigil` (a bench build, BINARY) on this
# machine's driver under callgrind, collecting only inside Device::submit, and prints the
# code footprint of its timed submissions (footprint.py).  Usage: footprint.sh BINARY OUT
set -eu
rm -f "$2"
valgrind --tool=callgrind --dump-instr=yes --separate-callers=20 \
  --toggle-collect='*Device<A>>::submit_waiting' --collect-atstart=no \
  --callgrind-out-file="$2" "$1" bench --quick --workload draws --path vigil > /dev/null 2>&1
python3 "$(dirname "$0")/footprint.py" "$2" "${3:-40}"
