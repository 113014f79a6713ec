#!/usr/bin/env bash
# Adds to .gl/ (see ../shared/tools/gpu-machine-prep.sh, run first) the Debian packages of
# the shader tools vigil's GPU-pointer tier calls at run time: glslc, with its libshaderc1,
# and spirv-val alone, xz-compressed as .gl/bin/spirv-val.xz (the whole spirv-tools package
# would take the carried tree past its 64 MiB). `source .gl/enter.sh` unpacks every .deb at
# the top of .gl/ into the device machine's root; a run script unpacks spirv-val into
# .gl/bin and puts that on its PATH. Without them the tier's pipelines are refused there
# (`glslc` or `spirv-val` could not run), as session 64's first two runs found.
#
#   bash docs/results/gpu-tools.sh
set -euo pipefail
root=$(git rev-parse --show-toplevel)
[ -f "$root/.gl/enter.sh" ] || { echo "run gpu-machine-prep.sh first" >&2; exit 1; }
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/gl-amd64-lists)
mkdir -p /tmp/gl-amd64-lists/partial
[ -n "$(ls /tmp/gl-amd64-lists 2>/dev/null | grep -v partial)" ] || apt-get "${o[@]}" -qq update
(cd "$root/.gl" && apt-get "${o[@]}" -qq download glslc libshaderc1)
tmp=$(mktemp -d)
(cd "$tmp" && apt-get "${o[@]}" -qq download spirv-tools && dpkg -x spirv-tools_*.deb x)
mkdir -p "$root/.gl/bin"
xz -T2 -9 -c "$tmp/x/usr/bin/spirv-val" > "$root/.gl/bin/spirv-val.xz"
rm -rf "$tmp"
ls -la "$root"/.gl/*.deb | grep -E 'glslc|shaderc'
ls -la "$root/.gl/bin/spirv-val.xz"
