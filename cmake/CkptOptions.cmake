# Project-wide compile options and the one place every target links MLIR through.

# Our own sources build warning-free at -Wall -Wextra; MLIR/LLVM headers are
# included as SYSTEM so their diagnostics do not count against us.
add_compile_options(-Wall -Wextra)
option(CKPT_WERROR "Treat warnings in ckpt-opt sources as errors" ON)
if(CKPT_WERROR)
  add_compile_options(-Werror)
endif()

# MLIR 19 offers libMLIR.so (imported target `MLIR`) or the static component
# libraries. Every binary links the shared library, through this helper only,
# so no binary ever carries two copies of MLIR's registries.
function(ckpt_link_mlir target visibility)
  target_link_libraries(${target} ${visibility} MLIR)
endfunction()
