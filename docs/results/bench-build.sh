#!/usr/bin/env bash
# Builds the bench binary of a commit for a device run, as .gl/bin/vigil-NAME.sxz (stripped,
# xz-compressed), from the project root:
#
#   bash docs/results/bench-build.sh NAME REV [PATCH]
#
# REV is built in a git worktree at /tmp/wt-NAME (PATCH, when given, applied on top) with the
# workspace's own target directory, so the dependencies (wgpu among them) are built once for
# every commit. Cargo keys a workspace crate's build by its name and version, not its path,
# and takes it as fresh when its sources are older than the last build: a worktree checked out
# before another worktree's build would come out as that build's binary. So every source file
# of the worktree is touched first, and the binary is checked against the ones already packed.
# The workspace's own sources must be touched the same way before its next build
# (`find crates examples xtask -name '*.rs' -exec touch {} +`).
set -euo pipefail
name=$1 rev=$2 patch=${3:-}
root=$(git rev-parse --show-toplevel)
wt=/tmp/wt-$name
git -C "$root" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
git -C "$root" worktree add --force --detach "$wt" "$rev" > /dev/null
if [ -n "$patch" ]; then
  git -C "$wt" apply "$(realpath "$patch")"
fi
find "$wt/crates" "$wt/examples" -name '*.rs' -exec touch {} +
(cd "$wt" && CARGO_TARGET_DIR="$root/target" cargo build --release -q -p vigil-cli --features bench)
mkdir -p "$root/.gl/bin"
strip -o "/tmp/vb-$name" "$root/target/release/vigil"
sum=$(md5sum < "/tmp/vb-$name")
for other in /tmp/vb-*; do
  if [ "$other" != "/tmp/vb-$name" ] && [ "$(md5sum < "$other")" = "$sum" ]; then
    echo "bench-build: $name is byte-identical to $other (a stale build?)" >&2
    exit 1
  fi
done
xz -T2 -6 -c "/tmp/vb-$name" > "$root/.gl/bin/vigil-$name.sxz"
echo "$name: $(git -C "$wt" rev-parse --short HEAD)${patch:+ + $patch} -> .gl/bin/vigil-$name.sxz"
