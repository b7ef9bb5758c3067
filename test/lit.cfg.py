# -*- Python -*-
# lit configuration of the ckpt-opt regression tests.

import os

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
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%ckpt_opt", os.path.join(config.ckpt_tools_dir, "ckpt-opt")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.ckpt_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("ckpt-opt", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
