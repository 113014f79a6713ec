# Parts the device run scripts share (from session 78 on; earlier scripts kept their own
# copies as the record of their runs). A run script sets `limit` (seconds the device
# command may take), `name` (what the results archive is called) and `res` (a folder
# for what comes back), sources this file, and calls the parts in the order it wants.
# Every part packs `res` into $OUT/$name.tar.xz when it is done, so a run killed at the
# limit keeps what finished (a device run returns at most 8 files).

# True when at least $1 seconds of the run's limit are left; says which part it skips.
room() { [ $((limit - SECONDS)) -ge "$1" ] || { echo "part skipped at ${SECONDS}s: needs $1 s"; false; }; }

pack() { tar -C "$res" -cJf "$OUT/$name.tar.xz" .; }

# Unpacks the named binaries of .gl/bin (`NAME.sxz`) onto the PATH and the suite archive
# $1 into .gl/tests; writes the card, driver and host to machine.txt and sets `card`.
unpack() {
  local suite=$1
  shift
  mkdir -p /tmp/b
  for b in "$@"; do xz -dc ".gl/bin/$b.sxz" > "/tmp/b/$b" && chmod +x "/tmp/b/$b"; done
  rm -rf .gl/tests
  (cd .gl && tar -xJf "$suite")
  export PATH=/tmp/b:$PATH
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$res/machine.txt"
  lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a "$res/machine.txt"
  card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
}

# The packed suite, each executable within PER seconds, the whole within $1 seconds;
# extra environment for the tests comes from the caller's exports.
suite() {
  OUT= PER=100 timeout "$1" .gl/tests/run-all.sh > "$res/tests.txt" 2>&1
  echo "suite rc=$? ${SECONDS}s" | tee -a "$res/tests.txt"
  echo "executables exited 0: $(grep -c ': rc=0 ' "$res/tests.txt") of $(grep -c ': rc=' "$res/tests.txt")"
  grep ': rc=' "$res/tests.txt" | grep -o "[0-9]* passed; [0-9]* failed" | awk '{p+=$1; f+=$3} END {print p " passed, " f " failed"}'
  grep -E 'FAILED|panicked' "$res/tests.txt" | head -8
  pack
}

# The fuzzer from seed $1 for the time left (less 10 s), two seeds a second of it.
fuzz() {
  timeout $((limit - SECONDS - 10)) /tmp/b/vigil-fuzz --seed "$1" --seeds $(( (limit - SECONDS - 20) * 2 )) --calls 5000 --jobs 14 > "$res/fuzz.txt" 2>&1
  echo "fuzz rc=$? ${SECONDS}s"
  grep FUZZ-TOTAL "$res/fuzz.txt"
  grep FUZZ-RESULT "$res/fuzz.txt" | grep -v "panics=0 validation=0 accepted-invalid=0 unclear=0 lost=0 leaks=0 wrong-data=0 health=ok" | head -8
  pack
}

# A full bench of .gl/bin/$1 (unpacked), within $2 seconds, saved as full.json and
# full.txt, with the texture-compression features the card has.
bench() {
  (vulkaninfo 2>/dev/null | grep -iE 'textureCompression' | head -6) | tee "$res/features.txt"
  timeout "$2" "/tmp/b/$1" bench --save "$res/full.json" > "$res/full.txt" 2>&1
  echo "bench rc=$? ${SECONDS}s"
  grep -E 'targets met|NOT MET|  met ' "$res/full.txt"
  pack
}
