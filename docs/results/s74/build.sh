#!/usr/bin/env bash
# Builds session 74's bench binary, from the project root, as .gl/bin/vigil-NAME.sxz, the
# way ../s73/build.sh does (a git worktree, the workspace's target directory, every
# source touched first, debug information stripped): s74a (dbb86f5: the short paths for
# vertex and index buffers, no completion look at a submission with nothing in flight).
# Its baseline is ../s73/build.sh's s73f (0e0d315, the same library before them).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
build() { # NAME REV
  local name=$1 rev=$2 wt=/tmp/wt-$1
  git -C "$root" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
  git -C "$root" worktree add --force --detach "$wt" "$rev" > /dev/null
  find "$wt/crates" "$wt/examples" -name '*.rs' -exec touch {} +
  (cd "$wt" && CARGO_TARGET_DIR="$root/target" cargo build --release -q -p vigil-cli --features bench)
  strip --strip-debug -o "/tmp/vb-$name" "$root/target/release/vigil"
  md5sum "/tmp/vb-$name"
  mkdir -p "$root/.gl/bin"
  xz -T2 -6 -c "/tmp/vb-$name" > "$root/.gl/bin/vigil-$name.sxz"
  git -C "$root" worktree remove --force "$wt"
  echo "$name: $rev"
}
build "${1:-s74a}" "${2:-dbb86f5}"  # s74b: bash build.sh s74b HEAD (the draw_indexed short path too)
