# -*- Python -*-
# lit configuration for Kite's FileCheck tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Kite"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".kite", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kite_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "kernels"]

config.substitutions.append(("%kite_src_root", config.kite_src_root))
config.substitutions.append(("%examples", os.path.join(config.kite_src_root, "dsl-examples")))

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.kite_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

tool_dirs = [config.kite_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["kite-opt", "kitec", "kite-run", "split-file"], tool_dirs)

ptxas = os.path.join(config.cuda_home, "bin", "ptxas")
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
