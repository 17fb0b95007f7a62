# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What ksync's Python tools share: loading another tool of tools/ (a script without the .py suffix) as a
module, so that each table and each reading of the benchmark JSON is written once."""

import importlib.machinery
import importlib.util
import pathlib
import sys

sys.dont_write_bytecode = True  # loaded tools leave no __pycache__ in the source tree
TOOLS = pathlib.Path(__file__).resolve().parent


def tool(name):
    """tools/<name> as a module."""
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), str(TOOLS / name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module
