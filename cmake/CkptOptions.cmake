# Project-wide compile options and the one place every target links MLIR through.

include(GNUInstallDirs)

# Our own sources build warning-free at -Wall -Wextra; MLIR/LLVM headers are
# included as SYSTEM so their diagnostics do not count against us.
add_compile_options(-Wall -Wextra)
# The op and interface declarations mlir-tblgen writes into build/include
# (not a SYSTEM directory) have unused parameters; gcc lets the explicit
# -Wno-unused-parameter of LLVM's flags win over -Wextra, clang takes the
# last flag, so a clang build says it again here.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  add_compile_options(-Wno-unused-parameter)
endif()
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

# Precompiled headers (CKPT_PRECOMPILED_HEADERS, on by default): the MLIR,
# LLVM and dialect headers that nearly every library, ckpt-opt and the MLIR
# unit tests include -- 4.4 s of g++ for CkptOps.h and the pass headers
# alone, most of a unity batch's front end -- are compiled once, by the
# object library CkptPrecompiledHeaders, and those targets reuse that one
# header (REUSE_FROM). Its flags must match theirs, which the compiler
# checks: clang refuses a mismatched header (the fuzz targets' extra
# -fsanitize=fuzzer, CommandLine.cpp's -fno-sanitize=vptr: those parse
# their headers), gcc warns (-Winvalid-pch, an error under -Werror). A cold
# build on 2 cores (docs/building.md): gcc 170 to 129 s, the clang
# sanitizer build 181 to 155 s. The header is force-included, so a source
# that forgets an #include still compiles in these targets; the installed-
# package test (test/Embed/install-and-embed.test) builds a consumer of the
# public headers without it.
option(CKPT_PRECOMPILED_HEADERS
  "Precompile the MLIR and dialect headers ckpt's targets include" ON)

# ckpt_add_precompiled_headers(): the target that makes the header, after
# the dialect's generated headers exist (call after add_subdirectory(include)).
function(ckpt_add_precompiled_headers)
  if(NOT CKPT_PRECOMPILED_HEADERS)
    return()
  endif()
  # An empty translation unit: the target exists to make the header.
  set(anchor ${PROJECT_BINARY_DIR}/CkptPrecompiledHeaders.cpp)
  file(WRITE ${anchor} "// Makes the precompiled header (cmake/CkptOptions.cmake).\n")
  add_library(CkptPrecompiledHeaders OBJECT ${anchor})
  llvm_update_compile_flags(CkptPrecompiledHeaders)
  set_target_properties(CkptPrecompiledHeaders PROPERTIES
    POSITION_INDEPENDENT_CODE ON)
  target_precompile_headers(CkptPrecompiledHeaders PRIVATE
    <algorithm> <functional> <map> <memory> <optional> <string> <vector>
    <llvm/ADT/DenseMap.h> <llvm/ADT/STLExtras.h> <llvm/ADT/SmallVector.h>
    <llvm/ADT/StringExtras.h> <llvm/ADT/StringRef.h>
    <llvm/Support/FormatVariadic.h> <llvm/Support/JSON.h>
    <llvm/Support/raw_ostream.h>
    <mlir/Dialect/Func/IR/FuncOps.h> <mlir/IR/Builders.h>
    <mlir/IR/BuiltinOps.h> <mlir/IR/Diagnostics.h> <mlir/IR/MLIRContext.h>
    <mlir/Pass/Pass.h> <mlir/Pass/PassManager.h>
    "${PROJECT_SOURCE_DIR}/include/ckpt/Dialect/Ckpt/IR/CkptOps.h")
  add_dependencies(CkptPrecompiledHeaders CkptOpsIncGen CkptInterfacesIncGen)
endfunction()

# ckpt_use_precompiled_headers(<target>): <target>'s C++ sources start with
# the precompiled header (targets compiled with LLVM's flags only: not the
# runtimes, which use exceptions and RTTI).
function(ckpt_use_precompiled_headers target)
  if(CKPT_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} REUSE_FROM CkptPrecompiledHeaders)
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
  if(TARGET obj.${name})
    ckpt_use_precompiled_headers(obj.${name})
  else()
    ckpt_use_precompiled_headers(${name})
  endif()
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
