"""Python driver for softmax-mlir's tools.

Text in, text out: :func:`compile` runs ``softmax-opt`` pipelines on MLIR
text, :mod:`softmax_mlir.pipelines` names the project's pipelines, and
:func:`run_cpu` lowers a module and runs it with ``mlir-runner``. Failures
raise :class:`SoftmaxMLIRError` carrying the tool's diagnostics and exit
code. Standard library only; array front doors (numpy, PyTorch) are meant
to come as separate modules on top of :mod:`softmax_mlir.runtime`.

Example::

    import softmax_mlir as sm
    out = sm.run_cpu(module_text, reduction_tile_size=64)
    [y] = sm.parse_memrefs(out)
"""

from __future__ import annotations

from .compiler import Pipeline, compile, pass_flag, pipeline_args  # noqa: F401
from .errors import SoftmaxMLIRError, ToolNotFoundError
from .pipelines import decompose, raise_linalg, select_algorithm, to_cpu
from .runtime import Memref, parse_memrefs, parse_prints, run_cpu, run_lowered
from .tools import find_llvm_tool, find_softmax_opt

__version__ = "0.1.0"

# ``compile`` is left out of ``__all__`` so that ``from softmax_mlir import *``
# does not shadow the builtin; use ``softmax_mlir.compile``.
__all__ = [
    "Memref",
    "Pipeline",
    "SoftmaxMLIRError",
    "ToolNotFoundError",
    "decompose",
    "find_llvm_tool",
    "find_softmax_opt",
    "parse_memrefs",
    "parse_prints",
    "pass_flag",
    "pipeline_args",
    "raise_linalg",
    "run_cpu",
    "run_lowered",
    "select_algorithm",
    "to_cpu",
]
