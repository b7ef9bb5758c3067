# -*- Python -*-
# lit configuration of the ckpt-opt regression tests.

import os
import subprocess
import shutil
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
# Target/Cpp: generated steps are compiled with this tree's C++ compiler
# against the runtime headers, and run with ckpt-run.
config.substitutions.append(("%cxx", shlex.quote(config.embed_cxx_compiler)))
config.substitutions.append(
    ("%ckpt_runtime_include",
     os.path.join(config.ckpt_src_root, "runtime", "include")))
config.substitutions.append(
    ("%ckpt_run", os.path.join(config.ckpt_tools_dir, "ckpt-run")))

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
# Sanitizer builds (scripts/sanitize.sh puts -fsanitize= into the flags), and
# the coverage build when it stands in for one (`--param as-sanitizer-run=1`:
# scripts/select-sanitizer-tests.py runs the tests as the sanitized run would).
if "-fsanitize" in config.embed_cxx_flags or lit_config.params.get("as-sanitizer-run"):
    config.available_features.add("sanitizer")
# The HTML report's screenshot test: Debian's chromium (headless) and
# python3-pil for the interpreter running the tests (scripts/install-deps.sh).
if shutil.which("chromium") and subprocess.run(
        [config.python_executable, "-c", "import PIL"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("chromium")
# Runtime/e2e-*: the smallest-budget search bisects to 1/128 of the peak; the
# sanitizer build (instrumented ckpt-opt, several times slower) to 1/8.
config.substitutions.append(
    ("%e2e_floor_steps",
     "3" if "sanitizer" in config.available_features else "7"))
# Target/Cuda: nvcc and the device runtime's archives (test/CMakeLists.txt);
# %nvcc_link_libs lists them with cuBLASLt, cudart and the host's libraries.
cuda_libs = os.path.join(config.ckpt_obj_root, "test", "cuda-link-libs.txt")
if config.ckpt_nvcc and os.path.exists(config.ckpt_nvcc) and os.path.exists(cuda_libs):
    config.available_features.add("nvcc")
    with open(cuda_libs) as f:
        libs = [line.strip() for line in f if line.strip()]
    link_libs = " ".join(shlex.quote(l) for l in libs) + " -lcublasLt -lpthread"
    # A generated step is host code only (the runtime carries the device
    # code): compiled quickly for sm_90, and it must be free of warnings.
    nvcc_flags = (
        "-O0 -std=c++17 -arch=sm_90 -Xcompiler=-fexceptions,-frtti,-Wall,-Wextra,-Werror "
        + "-I" + shlex.quote(os.path.join(config.ckpt_src_root, "runtime", "include"))
        + " -I" + shlex.quote(os.path.join(config.ckpt_src_root, "runtime", "cuda", "include")))
    # The first line is the device runtime's archive (test/CMakeLists.txt).
    config.substitutions.append(("%cuda_runtime_archive", shlex.quote(libs[0])))
    config.substitutions.append(("%nvcc_link_libs", link_libs))
    config.substitutions.append(("%nvcc_flags", nvcc_flags))
    # The same for a generated step compiled as C++ (`-x c++`): the step is
    # host code only, so nvcc hands it to the host compiler with CUDA's
    # include paths; its CUDA front ends (cudafe++, cicc), which find no
    # device code in it, took two thirds of the time (llama.full: 29.9 s
    # against 9.7 s; docs/gpu.md). compile-half-gpt.test and
    # emit-cuda-attention-mask.mlir still compile steps as .cu.
    config.substitutions.append(("%nvcc_step_flags", nvcc_flags + " -x c++"))
    # The same as one shell word each, for drivers that take them as
    # arguments (Target/Cuda/compile_corpus.py: its --step-flags adds
    # %q_nvcc_step_only to the step's compile).
    config.substitutions.append(("%q_nvcc_link_libs", shlex.quote(link_libs)))
    config.substitutions.append(("%q_nvcc_flags", shlex.quote(nvcc_flags)))
    config.substitutions.append(("%q_nvcc_step_only", shlex.quote("-x c++")))
    config.substitutions.append(
        ("%cuda_runner_src",
         os.path.join(config.ckpt_src_root, "tools", "ckpt-run-cuda", "ckpt-run-cuda.cpp")))
    # Last: lit substitutes in order, and %nvcc prefixes the names above.
    config.substitutions.append(("%nvcc", shlex.quote(config.ckpt_nvcc)))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.ckpt_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("ckpt-opt", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
