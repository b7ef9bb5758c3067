#!/usr/bin/env bash
# Prepares the GPU check of the torch.compile backend (docs/gpu.md, "ckpt_torch
# on the GPU"): the GPU machine has no MLIR, so ckpt-opt travels with the
# shared libraries it loads (LLVM, MLIR, CBC, ...; not the C runtime), packed
# into bench/gpu/prepared-torch/ckpt-opt.tar.xz (~58 MB: the device tool's
# carry limit is 64 MiB, working tree included). Git ignores the directory.
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
# CoinUtils loads LAPACK: Debian's default is OpenBLAS's (36 MB, 4.3 MB
# packed), the reference LAPACK and BLAS are a fraction of that and do the
# same for CBC's few factorizations; the pack and the working tree must fit
# the device tool's 64 MiB together.
reference=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
if [ -f "$stage/ckpt-opt/lib/libopenblas.so.0" ] && [ -f "$reference" ] &&
   [ -f /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 ]; then
  rm -f "$stage/ckpt-opt/lib/libopenblas.so.0" "$stage/ckpt-opt/lib/liblapack.so.3"
  cp -L "$reference" /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 "$stage/ckpt-opt/lib/"
fi
strip --strip-unneeded "$stage/ckpt-opt/ckpt-opt" "$stage/ckpt-opt/lib/"*.so* 2>/dev/null || true
cat > "$stage/ckpt-opt/ckpt-opt.sh" <<'WRAP'
#!/usr/bin/env bash
dir=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$dir/ckpt-opt" "$@"
WRAP
chmod +x "$stage/ckpt-opt/ckpt-opt.sh"
"$stage/ckpt-opt/ckpt-opt.sh" --version >/dev/null
# Each library the tool loads comes from the pack, not from this machine.
if LD_LIBRARY_PATH="$stage/ckpt-opt/lib" ldd "$stage/ckpt-opt/ckpt-opt" | grep -q 'not found'; then
  echo "torch_prepare.sh: the packed ckpt-opt misses a library" >&2
  exit 1
fi
mkdir -p "$out"
XZ_OPT="-9 -T2" tar -C "$stage" -cJf "$out/ckpt-opt.tar.xz.tmp" ckpt-opt
mv "$out/ckpt-opt.tar.xz.tmp" "$out/ckpt-opt.tar.xz"
echo "torch_prepare.sh: $out/ckpt-opt.tar.xz ($(du -h "$out/ckpt-opt.tar.xz" | cut -f1))"
