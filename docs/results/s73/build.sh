#!/usr/bin/env bash
# Builds session 73's bench binaries, from the project root, as .gl/bin/vigil-NAME.sxz:
# s73b (a6365f1) and s73m (a6365f1 with members-inline.patch, the code of 943fee9) for
# run-2.sh, s73s (b3885e7: small buffers in slabs) for run-4.sh, and s73f (0e0d315, the
# session's last library commit) for run-5.sh; as ../bench-build.sh does (a git worktree, the workspace's target
# directory, every source touched first), but stripped of debug information only, so
# perf can name the functions.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
build() { # NAME REV [PATCH]
  local name=$1 rev=$2 patch=${3:-} wt=/tmp/wt-$1
  git -C "$root" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
  git -C "$root" worktree add --force --detach "$wt" "$rev" > /dev/null
  if [ -n "$patch" ]; then git -C "$wt" apply "$(realpath "$patch")"; fi
  find "$wt/crates" "$wt/examples" -name '*.rs' -exec touch {} +
  (cd "$wt" && CARGO_TARGET_DIR="$root/target" cargo build --release -q -p vigil-cli --features bench)
  strip --strip-debug -o "/tmp/vb-$name" "$root/target/release/vigil"
  md5sum "/tmp/vb-$name"
  mkdir -p "$root/.gl/bin"
  xz -T2 -6 -c "/tmp/vb-$name" > "$root/.gl/bin/vigil-$name.sxz"
  echo "$name: $(git -C "$wt" rev-parse --short HEAD)${patch:+ + $patch}"
}
case ${1:-all} in
  all) build s73b a6365f1; build s73m a6365f1 docs/results/s73/members-inline.patch ;;
  s73s) build s73s b3885e7 ;;
  s73f) build s73f 0e0d315 ;;
esac
