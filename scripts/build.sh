#!/usr/bin/env bash
# Configures (once) and builds ckpt-opt in ./build with Ninja.
# Usage: scripts/build.sh [ninja targets...]   (default: everything)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${CKPT_BUILD_DIR:-build}
source scripts/cmake-common.sh

if [ ! -f "$build_dir/build.ninja" ]; then
  # Release at -O2 rather than CMake's -O3: the same speed for what the
  # tests and benchmarks measure (docs/building.md), and a cheaper build.
  cmake -B "$build_dir" "${ckpt_cmake_args[@]}" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG"
fi
ninja -C "$build_dir" "$@"
