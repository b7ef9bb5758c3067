#!/usr/bin/env bash
# Configures (once) and builds ckpt-opt in ./build with Ninja.
# Usage: scripts/build.sh [ninja targets...]   (default: everything)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${CKPT_BUILD_DIR:-build}
source scripts/cmake-common.sh

if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -B "$build_dir" "${ckpt_cmake_args[@]}" -DCMAKE_BUILD_TYPE=Release
fi
ninja -C "$build_dir" "$@"
