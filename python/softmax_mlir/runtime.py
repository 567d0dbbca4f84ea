"""Running lowered modules with ``mlir-runner`` on the host CPU.

This is the text-in/text-out layer; array front doors (numpy, PyTorch)
are meant to sit on top of it in a separate module.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from typing import Literal

from . import pipelines
from .compiler import run_tool
from .pipelines import Algorithm
from .tools import find_llvm_tool, runner_libs

__all__ = ["Memref", "parse_memrefs", "parse_prints", "run_cpu", "run_lowered"]

EntryResult = Literal["void", "i32", "i64", "f32"]


def run_lowered(
    llvm_ir: str,
    *,
    entry: str = "main",
    entry_result: EntryResult = "void",
    shared_libs: Sequence[str | os.PathLike[str]] | None = None,
    runner: str | os.PathLike[str] | None = None,
    extra_args: Sequence[str] = (),
    timeout: float | None = None,
) -> str:
    """JIT-run a module already in the LLVM dialect; return its stdout."""
    exe = runner if runner is not None else find_llvm_tool("mlir-runner")
    libs = list(shared_libs) if shared_libs is not None else runner_libs()
    cmd = [
        os.fspath(exe),
        "-e",
        entry,
        f"-entry-point-result={entry_result}",
        *([f"-shared-libs={','.join(os.fspath(l) for l in libs)}"] if libs else []),
        *extra_args,
    ]
    return run_tool(cmd, llvm_ir, what="mlir-runner", timeout=timeout)


def run_cpu(
    ir: str,
    *,
    entry: str = "main",
    entry_result: EntryResult = "void",
    reduction_tile_size: int = 0,
    raise_linalg: bool = False,
    algorithm: Algorithm | None = None,
    vector_width: int | None = None,
    threads: int = 1,
    three_pass: pipelines.ThreePass = "auto",
    tool: str | os.PathLike[str] | None = None,
    shared_libs: Sequence[str | os.PathLike[str]] | None = None,
    runner: str | os.PathLike[str] | None = None,
    extra_args: Sequence[str] = (),
    timeout: float | None = None,
) -> str:
    """Lower ``ir`` with :func:`softmax_mlir.pipelines.to_cpu` and run its
    ``entry`` function with ``mlir-runner``; return what it printed.
    ``runner`` and ``extra_args`` (``-O3`` for a benchmark) go to
    :func:`run_lowered`.

    ``ir`` is a module of func ops on tensors; ``entry`` takes no arguments
    and typically prints results with ``printMemrefF32``/``printMemrefI32``
    (see :func:`parse_memrefs`).

    Raises:
        SoftmaxMLIRError: lowering or execution failed.
    """
    lowered = pipelines.to_cpu(
        ir,
        reduction_tile_size=reduction_tile_size,
        raise_linalg=raise_linalg,
        algorithm=algorithm,
        vector_width=vector_width,
        threads=threads,
        three_pass=three_pass,
        tool=tool,
    )
    if shared_libs is None and threads != 1:
        shared_libs = runner_libs(openmp=True)
    return run_lowered(
        lowered,
        entry=entry,
        entry_result=entry_result,
        shared_libs=shared_libs,
        runner=runner,
        extra_args=extra_args,
        timeout=timeout,
    )


@dataclasses.dataclass(frozen=True)
class Memref:
    """A memref printed by ``printMemref*``: its sizes and its elements in
    row-major order (``float``; for ``printMemrefI32``, integral values)."""

    sizes: tuple[int, ...]
    data: tuple[float, ...]

    def tolist(self) -> object:
        """The elements as nested lists of the memref's shape."""

        def build(flat: Sequence[float], sizes: Sequence[int]) -> object:
            if not sizes:
                return flat[0]
            step = len(flat) // sizes[0] if sizes[0] else 0
            return [build(flat[i * step : (i + 1) * step], sizes[1:]) for i in range(sizes[0])]

        return build(self.data, self.sizes)


_HEAD = re.compile(
    r"Unranked Memref base@ = \S+ rank = \d+ offset = \d+ sizes = \[([^\]]*)\] "
    r"strides = \[[^\]]*\] data ="
)
_NUMBER = re.compile(r"[-+]?(?:nan|inf|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", re.IGNORECASE)


def _memref(head: re.Match[str], data: str, index: int) -> Memref:
    """The memref whose header is ``head`` and whose elements ``data`` holds
    (the ``index``-th print, for the error)."""
    sizes = tuple(int(s) for s in head.group(1).replace(",", " ").split())
    values = tuple(float(v) for v in _NUMBER.findall(data))
    count = 1
    for s in sizes:
        count *= s
    if len(values) != count:
        raise ValueError(f"print #{index}: {count} elements expected, {len(values)} found")
    return Memref(sizes, values)


def parse_memrefs(text: str) -> list[Memref]:
    """Parse the output of ``printMemrefF32``/``printMemrefI32``/... calls."""
    heads = list(_HEAD.finditer(text))
    return [
        _memref(h, text[h.end() : heads[i + 1].start() if i + 1 < len(heads) else len(text)], i)
        for i, h in enumerate(heads)
    ]


_BARE = re.compile(r"\s*" + _NUMBER.pattern + r"\s*", re.IGNORECASE)


def parse_prints(text: str) -> list[Memref | float]:
    """Parse a program's prints in order: each ``printMemref*`` call as a
    :class:`Memref`, each line holding one number alone (``printF64`` or
    ``printF32`` then ``printNewline``, a benchmark's time) as a float. A
    memref's data ends at the next memref or at such a line."""
    out: list[Memref | float] = []
    head: re.Match[str] | None = None
    data: list[str] = []

    def close() -> None:
        if head is not None:
            out.append(_memref(head, " ".join(data), len(out)))

    for line in text.splitlines():
        found = _HEAD.search(line)
        if found:
            close()
            head, data = found, [line[found.end():]]
        elif _BARE.fullmatch(line):
            close()
            head = None
            out.append(float(line))
        elif head is not None:
            data.append(line)
    close()
    return out
