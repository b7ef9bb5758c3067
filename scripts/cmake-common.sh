# Sourced by scripts/build.sh and scripts/sanitized-build.sh: the configure
# arguments every build tree of the project shares (Debian's LLVM/MLIR 19, its
# lit, and Debian's python3 for the tests), as the array ckpt_cmake_args.
ckpt_cmake_args=(
  -G Ninja
  -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py
  -DPython3_EXECUTABLE=/usr/bin/python3
  # Each target's sources compiled in batches (cmake/CkptOptions.cmake says
  # why); -DCMAKE_UNITY_BUILD=OFF on a tree being edited file by file.
  -DCMAKE_UNITY_BUILD=ON
)
if command -v ccache >/dev/null 2>&1; then
  ckpt_cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
