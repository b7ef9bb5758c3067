#!/usr/bin/env bash
# Prepares the GPU check of the torch.compile backend (docs/gpu.md, "ckpt_torch
# on the GPU"): the GPU machine has no MLIR, so ckpt-opt travels with the
# shared libraries it loads (LLVM, MLIR, CBC, ...; not the C runtime), packed
# into bench/gpu/prepared-torch/ckpt-opt.tar.xz (~63 MB: the device tool's
# carry limit is 64 MiB). Git ignores the directory.
# Usage: bash bench/gpu/torch_prepare.sh [build dir (default build)]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
exe=$build/bin/ckpt-opt
out=$root/bench/gpu/prepared-torch
if [ ! -x "$exe" ]; then
  echo "torch_prepare.sh: no $exe: build first (bash scripts/build.sh)" >&2
  exit 2
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/ckpt-opt/lib"
cp "$exe" "$stage/ckpt-opt/ckpt-opt"
ldd "$exe" | awk '$3 ~ /^\// { print $3 }' |
  grep -v -E '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/ckpt-opt/lib/"; done
strip --strip-unneeded "$stage/ckpt-opt/lib/"*.so* 2>/dev/null || true
cat > "$stage/ckpt-opt/ckpt-opt.sh" <<'WRAP'
#!/usr/bin/env bash
dir=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$dir/ckpt-opt" "$@"
WRAP
chmod +x "$stage/ckpt-opt/ckpt-opt.sh"
"$stage/ckpt-opt/ckpt-opt.sh" --version >/dev/null
mkdir -p "$out"
tar -C "$stage" -cJf "$out/ckpt-opt.tar.xz.tmp" ckpt-opt
mv "$out/ckpt-opt.tar.xz.tmp" "$out/ckpt-opt.tar.xz"
echo "torch_prepare.sh: $out/ckpt-opt.tar.xz ($(du -h "$out/ckpt-opt.tar.xz" | cut -f1))"
