#!/usr/bin/env bash
# Installs the Debian packages ckpt-opt needs to build and test, if any is
# missing. Idempotent: does nothing (and needs no network) when all are there.
# Run as root on Debian 12 (bookworm), where LLVM/MLIR 19 come from main.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tested versions: see docs/building.md. Major versions are pinned by name
# (llvm-19, mlir-19); Debian stable only takes bug and security fixes.
packages=(
  build-essential cmake ninja-build
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  zlib1g-dev libzstd-dev libedit-dev libcurl4-openssl-dev libxml2-dev
  libffi-dev libncurses-dev
  libgtest-dev
  coinor-libcbc-dev pkg-config
  libopenblas-dev  # host runtime BLAS (runtime/)
  python3 python3-numpy python3-torch python3-torchvision python3-jsonschema python3-networkx
  python3-pytest python3-pytest-xdist  # the Python tests, two at a time (scripts/check.sh)
  chromium python3-pil  # the HTML report's screenshot test (headless Chromium, test/Transforms)
  clang-14 libclang-rt-14-dev  # libFuzzer and sanitizer runtimes (scripts/fuzz.sh)
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# The PyTorch 2 stack from PyPI (pinned, in a virtual environment), after the
# Debian packages; a no-op without network when it is current.
install_torch() { bash scripts/install-torch.sh >/dev/null; }

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_torch
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages and not root; run as root or install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_torch
