# Installation: `cmake --install build --prefix <dir>` lays out
#   <dir>/bin/ckpt-opt
#   <dir>/include/ckpt/...            public headers, .def and .td files and the
#                                     generated .h.inc/.cpp.inc they include
#   <dir>/lib/libCkpt*.a              the libraries (static)
#   <dir>/lib/cmake/CkptOpt/          CkptOptConfig.cmake, its version file and
#                                     CkptOptTargets*.cmake (CkptOpt::<name>)
# so that another project can `find_package(CkptOpt CONFIG REQUIRED)` and link
# CkptOpt::CkptInitAll etc. See docs/embedding.md and examples/embed/.
# Included from the top-level CMakeLists.txt after lib/ and tools/.

include(CMakePackageConfigHelpers)

set(CKPT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/CkptOpt"
  CACHE STRING "Where the CkptOpt CMake package is installed (relative to the prefix)")

# Headers written by hand, and the TableGen sources (for projects that extend
# the dialect with their own .td files).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ckpt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT ckpt-headers
  FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.td")
# Headers TableGen generated into the build tree, which public headers include.
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/ckpt
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT ckpt-headers
  FILES_MATCHING PATTERN "*.h.inc" PATTERN "*.cpp.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# Every library made by add_ckpt_library is in the export set; make sure no
# target took the road to MLIR's own export set (add_mlir_library without
# DISABLE_INSTALL), which would install it as part of MLIRTargets.
get_property(ckpt_libraries GLOBAL PROPERTY CKPT_EXPORTED_LIBRARIES)
get_property(ckpt_mlir_exports GLOBAL PROPERTY MLIR_EXPORTS)
if(ckpt_mlir_exports)
  message(FATAL_ERROR "These targets would be installed into MLIR's export "
    "set: ${ckpt_mlir_exports}. Make libraries with add_ckpt_library "
    "(cmake/CkptOptions.cmake).")
endif()

install(EXPORT CkptOptTargets
  NAMESPACE CkptOpt::
  DESTINATION ${CKPT_INSTALL_CMAKEDIR}
  COMPONENT ckpt-cmake)

# The config re-finds what the exported targets link: MLIR (the imported
# `MLIR`, libMLIR.so, and LLVM's targets) and CBC (PkgConfig::CBC).
set(CKPT_MLIR_DIR "${MLIR_DIR}")
string(REPLACE ";" " " CKPT_EXPORTED_LIBRARIES "${ckpt_libraries}")
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/CkptOptConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lib/cmake/CkptOpt/CkptOptConfig.cmake
  INSTALL_DESTINATION ${CKPT_INSTALL_CMAKEDIR})
# 0.x: the API may change between minor versions.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/lib/cmake/CkptOpt/CkptOptConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/lib/cmake/CkptOpt/CkptOptConfig.cmake
  ${PROJECT_BINARY_DIR}/lib/cmake/CkptOpt/CkptOptConfigVersion.cmake
  DESTINATION ${CKPT_INSTALL_CMAKEDIR}
  COMPONENT ckpt-cmake)

# What test/Embed/install-and-embed.test needs (test/lit.site.cfg.py.in): it
# installs this build and configures examples/embed against the install with
# Ninja and the compiler and flags this tree was configured with (the cache
# values, before LLVM's option handling added its own), so that the sanitizer
# build's instrumented libraries link into an instrumented consumer.
if(CMAKE_GENERATOR MATCHES "Ninja")
  set(CKPT_NINJA_EXECUTABLE "${CMAKE_MAKE_PROGRAM}")
else()
  find_program(CKPT_NINJA_EXECUTABLE NAMES ninja ninja-build)
endif()
set(CKPT_EMBED_C_FLAGS "$CACHE{CMAKE_C_FLAGS}")
set(CKPT_EMBED_CXX_FLAGS "$CACHE{CMAKE_CXX_FLAGS}")
set(CKPT_EMBED_EXE_LINKER_FLAGS "$CACHE{CMAKE_EXE_LINKER_FLAGS}")
