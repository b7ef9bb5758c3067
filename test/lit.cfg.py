# -*- Python -*-
# lit configuration of the ckpt-opt regression tests.

import os
import shlex

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "CKPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ckpt_obj_root, "test")
# Unit/ holds its own suite (GoogleTest), found through its site config.
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%ckpt_src_root", config.ckpt_src_root))
config.substitutions.append(("%ckpt_obj_root", config.ckpt_obj_root))
# ../shared of the repository, resolved at configure time (benchmark data).
config.substitutions.append(("%ckpt_shared", config.ckpt_shared_dir))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%ckpt_opt", os.path.join(config.ckpt_tools_dir, "ckpt-opt")))

# Embed/: the package install and an out-of-tree consumer built against it.
# %embed_cmake_args configures the consumer like this tree: its compiler,
# build type and flags (the sanitizer build's included), and MLIR.
config.substitutions.append(("%cmake", shlex.quote(config.cmake_executable)))
config.substitutions.append(("%ninja", shlex.quote(config.ninja_executable)))
embed_args = [
    "-G", "Ninja",
    "-DCMAKE_MAKE_PROGRAM=" + config.ninja_executable,
    "-DCMAKE_BUILD_TYPE=" + config.embed_build_type,
    "-DCMAKE_C_COMPILER=" + config.embed_c_compiler,
    "-DCMAKE_CXX_COMPILER=" + config.embed_cxx_compiler,
    "-DCMAKE_C_FLAGS=" + config.embed_c_flags,
    "-DCMAKE_CXX_FLAGS=" + config.embed_cxx_flags,
    "-DCMAKE_EXE_LINKER_FLAGS=" + config.embed_exe_linker_flags,
]
if config.embed_compiler_launcher:
    embed_args.append(
        "-DCMAKE_CXX_COMPILER_LAUNCHER=" + config.embed_compiler_launcher)
config.substitutions.append(
    ("%embed_cmake_args", " ".join(shlex.quote(a) for a in embed_args)))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
if config.ninja_executable and os.path.exists(config.ninja_executable):
    config.available_features.add("ninja")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.ckpt_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("ckpt-opt", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
