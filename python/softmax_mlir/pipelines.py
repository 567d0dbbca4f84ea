"""Named pipelines of softmax-opt.

Each function takes IR text and returns IR text; they raise
:class:`~softmax_mlir.errors.SoftmaxMLIRError` on failure. The ``*_args``
functions return the corresponding command-line flags, for composition::

    ir = compile(ir, raise_linalg_args() + to_cpu_args(reduction_tile_size=64))
"""

from __future__ import annotations

import os
from typing import Literal

from .compiler import compile, pass_flag

__all__ = [
    "Algorithm",
    "ThreePass",
    "decompose",
    "raise_linalg",
    "raise_linalg_args",
    "select_algorithm",
    "select_algorithm_args",
    "to_cpu",
    "to_cpu_args",
]

Algorithm = Literal["three_pass", "online", "exp_pair"]
Target = Literal["cpu", "gpu"]

Tool = str | os.PathLike[str] | None


def raise_linalg_args() -> list[str]:
    return [pass_flag("softmax-raise")]


def select_algorithm_args(
    force: Algorithm | None = None, target: Target | None = None
) -> list[str]:
    return [pass_flag("softmax-select-algorithm", target=target, force=force)]


# The three_pass variants of softmax-map-to-cpu (``three-pass`` of
# softmax-to-cpu): recompute exp in the output sweep, reload it from the
# output, or tiled (max and sum per L1 block); auto lets the heuristic pick.
ThreePass = Literal["auto", "recompute", "reload", "tiled"]


def to_cpu_args(
    reduction_tile_size: int = 0,
    vector_width: int | None = None,
    threads: int = 1,
    three_pass: ThreePass = "auto",
) -> list[str]:
    if reduction_tile_size < 0:
        raise ValueError("reduction_tile_size must be >= 0")
    if vector_width is not None and vector_width < 0:
        raise ValueError("vector_width must be >= 0 (None: the host's width)")
    if threads < 0:
        raise ValueError("threads must be >= 0 (0: the OpenMP runtime's choice)")
    return [
        pass_flag(
            "softmax-to-cpu",
            reduction_tile_size=reduction_tile_size or None,
            vector_width=vector_width,
            threads=threads if threads != 1 else None,
            three_pass=three_pass if three_pass != "auto" else None,
        )
    ]


def raise_linalg(ir: str, *, tool: Tool = None) -> str:
    """``--softmax-raise``: ``linalg.softmax``, the linalg spellings of softmax,
    log-softmax and log-sum-exp, and linalg attention graphs become
    ``softmax.softmax`` / ``log_softmax`` / ``logsumexp`` / ``attention``
    (docs/Passes/softmax-raise.md)."""
    return compile(ir, raise_linalg_args(), tool)


def select_algorithm(
    ir: str,
    *,
    force: Algorithm | None = None,
    target: Target | None = None,
    tool: Tool = None,
) -> str:
    """``--softmax-select-algorithm``: resolve ``algorithm(auto)`` (cost model
    for ``target``), or set every op to ``force``."""
    return compile(ir, select_algorithm_args(force, target), tool)


def decompose(
    ir: str,
    *,
    reduction_tile_size: int = 0,
    to_state: bool = False,
    attention_key_tile_size: int = 0,
    tool: Tool = None,
) -> str:
    """``--softmax-decompose``: softmax ops to state ops (optionally tiled along
    the reduction), then to linalg/arith/math unless ``to_state``;
    ``softmax.attention`` to its decomposition, tiled along the keys by
    ``attention_key_tile_size`` (0: untiled)."""
    flag = pass_flag(
        "softmax-decompose",
        reduction_tile_size=reduction_tile_size or None,
        to_state=True if to_state else None,
        attention_key_tile_size=attention_key_tile_size or None,
    )
    return compile(ir, [flag], tool)


def to_cpu(
    ir: str,
    *,
    reduction_tile_size: int = 0,
    raise_linalg: bool = False,
    algorithm: Algorithm | None = None,
    vector_width: int | None = None,
    threads: int = 1,
    three_pass: ThreePass = "auto",
    tool: Tool = None,
) -> str:
    """Lower a module of func ops on tensors to the LLVM dialect
    (``--softmax-to-cpu``), ready for ``mlir-runner`` or ``mlir-translate``.

    Args:
        reduction_tile_size: tile the reduction dimension of the ops lowered
            through ``softmax-decompose`` by this size (0: untiled).
        vector_width: f32 lanes of the vector code; None: the host's native
            width (the pipeline's ``vector-width=-1``, its default); 0: no
            vector mapping, scalar linalg loops for every op. (The pass
            ``softmax-map-to-cpu`` reads its own ``vector-width=0`` as the
            host's width; this is the pipeline's option.)
        threads: 1 runs rows in order; 0 lets OpenMP choose, N > 1 uses N
            threads (the program then needs libomp: ``runner_libs(openmp=True)``).
        three_pass: the variant of ``three_pass`` on the vector path:
            ``recompute`` (exp again in the output sweep), ``reload`` (exp
            stored by the sum sweep, rescaled in place), ``tiled`` (max and
            sum per L1 block, then the output), or ``auto`` (the mapping's
            heuristic).
        raise_linalg: run ``--softmax-raise`` first.
        algorithm: force this algorithm on every softmax op
            (``--softmax-select-algorithm=force=...``).
    """
    args: list[str] = []
    if raise_linalg:
        args += raise_linalg_args()
    if algorithm is not None:
        args += select_algorithm_args(force=algorithm)
    args += to_cpu_args(reduction_tile_size, vector_width, threads, three_pass)
    return compile(ir, args, tool)
