# Project-wide compile options and the one place every target links MLIR through.

include(GNUInstallDirs)

# Our own sources build warning-free at -Wall -Wextra; MLIR/LLVM headers are
# included as SYSTEM so their diagnostics do not count against us.
add_compile_options(-Wall -Wextra)
option(CKPT_WERROR "Treat warnings in ckpt-opt sources as errors" ON)
if(CKPT_WERROR)
  add_compile_options(-Werror)
endif()

# Unity builds (CMAKE_UNITY_BUILD, which scripts/cmake-common.sh turns on)
# compile each target's sources in batches of 8 per file: the MLIR headers
# are parsed once a batch instead of once a source (a cold gcc build: 386
# against 603 s of CPU; docs/building.md). Names at file scope must then be unique within a
# target. gcc's -Wsubobject-linkage fires on every class of an included
# .cpp that has a member of an anonymous-namespace type, which is correct
# code in a source file; it stays on in non-unity builds.
if(CMAKE_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options(-Wno-subobject-linkage)
endif()

# Code whose speed does not matter -- the unit tests' own code and the op
# definitions mlir-tblgen generates (builders, accessors, verifiers) -- is
# compiled at -O1 in optimized builds: g++ takes 46 s on CkptOps.cpp at -O1
# against 67 s at -O2 (the largest file of the build), and 6.9 s on the unit
# tests' KernelTest.cpp against 9.2 s at -O2 and 14.2 s at -O3. Not -O0 for
# CkptOps.cpp (36 s with g++, and clang with the sanitizers 59 s against
# 103 s): parsing, building and verifying ops ran about 3.5x slower, the
# fuzz targets under the sanitizers 116-131 s against 32-48 s for the same
# executions. What the tests measure (solvers, planner, runtime kernels) is
# in the libraries, compiled with the build type's flags.
# ckpt_compile_for_build_time(TARGET <target>) or (SOURCES <file>...).
function(ckpt_compile_for_build_time kind)
  set(quick "$<$<NOT:$<CONFIG:Debug>>:-O1>")
  if(kind STREQUAL "TARGET")
    target_compile_options(${ARGN} PRIVATE ${quick})
  elseif(kind STREQUAL "SOURCES")
    set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_OPTIONS ${quick})
  else()
    message(FATAL_ERROR "ckpt_compile_for_build_time: TARGET or SOURCES, not '${kind}'")
  endif()
endfunction()

# MLIR 19 offers libMLIR.so (imported target `MLIR`) or the static component
# libraries. Every binary links the shared library, through this helper only,
# so no binary ever carries two copies of MLIR's registries.
function(ckpt_link_mlir target visibility)
  target_link_libraries(${target} ${visibility} MLIR)
endfunction()

# Every ckpt library is made through this wrapper around add_mlir_library
# (same arguments). add_mlir_library would install the target into MLIR's own
# export set (`install(TARGETS ... EXPORT MLIRTargets)`), which this project
# never installs; DISABLE_INSTALL turns that off and the library goes to our
# export set, CkptOptTargets, instead (cmake/CkptInstall.cmake writes it as
# lib/cmake/CkptOpt/CkptOptTargets.cmake, targets named CkptOpt::<name>).
# The include directories are attached to the target so consumers of the
# installed package get them with the link.
function(add_ckpt_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(TARGETS ${name}
    EXPORT CkptOptTargets
    COMPONENT ckpt-libraries
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_property(GLOBAL APPEND PROPERTY CKPT_EXPORTED_LIBRARIES ${name})
endfunction()
