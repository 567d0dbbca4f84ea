#!/usr/bin/env python3
"""Execution-test harness for the softmax dialect on the CPU pipeline.

For one op (``softmax``, ``log_softmax`` or ``logsumexp``) and one *form*
(``dialect``: the ``softmax.*`` op with an explicit ``algorithm(...)``;
``linalg``: upstream ``linalg.softmax`` raised by ``--softmax-raise`` with
``--softmax-select-algorithm="force=ALG"``) this script

1. generates random input rows from a FIXED seed (``DEFAULT_SEED``, or
   ``--seed N``; ``--seed random``, or ``SOFTMAX_TEST_SEED=random`` in the
   environment as ``scripts/soak.sh`` sets it, draws a fresh one), printed
   so that a failure can be reproduced, plus hostile rows: all ``-inf`` (masked), ``+-1e4`` logits,
   mixed huge and tiny magnitudes (down to subnormals), rows with some
   ``-inf``, a single finite value at either end (whole tiles of ``-inf``),
   constant rows, values near ``+-FLT_MAX``; at several row lengths (1,
   primes 7/131/1031, a multiple of the tile size and lengths that are not).
   Zero-only data is never used;
2. writes ONE module per pipeline configuration (tile size, and for the
   linalg form the forced algorithm), with one function per (tensor shape,
   algorithm, masked mode). Inputs are exact little-endian hex dense
   constants (``dense<"0x...">``), so the kernel sees bit-exactly the values
   the reference uses. ``main`` converts every result to its bit pattern
   (f32, f64: ``arith.bitcast`` to i32, i64; bf16, f16: ``arith.extf`` to
   f32, then bitcast; in a ``linalg.generic``) and prints it with
   ``printMemrefI32``/``printMemrefI64``;
3. lowers the module with ``softmax-opt ... --softmax-to-cpu``: untiled
   (tile 0) with the pipeline's defaults, the vector mapping, plus
   ``--pipeline-options``; tiled (tile N) with
   ``vector-width=0 reduction-tile-size=N``, the scalar linalg path;
   with ``--transform-script``, through that transform script
   (``--transform-interpreter``) and ``softmax-to-cpu-after-mapping``
   instead, untiled only;
   runs it with ``mlir-runner``, parses the printed memrefs and compares them
   with a numpy reference computed in long double from the rounded inputs.

Error metric (per row; the reported figure is the maximum over rows):

* softmax:      ``max_j |y_j - ref_j| / max_j |ref_j|``  (normwise relative
  error in the inf-norm; the softmax of a row has entries of wildly
  different magnitude, elementwise relative error of tiny entries is
  meaningless);
* log_softmax:  ``max_j |y_j - ref_j| / max(1, |ref_j|)``;
* logsumexp:    ``|y - ref| / max(1, |ref|)``.

Bounds, flat at every row length: f32 ``1e-6``, bf16 ``1e-2`` (one bf16
rounding of the output is up to 2^-9), f16 ``2e-3`` (2^-12), f64 ``1e-14``;
the same with ``{acc_type = f64}``. ``--tolerance`` replaces the bound. A
flat f32 bound needs compensated accumulation: plain recursive f32
summation of the n terms ``exp(x_j - max)`` drifts like ``sqrt(n) u`` on
varied rows and like ``n u`` on rows of equal terms (``u = 2^-24``);
upstream ``linalg.softmax`` lowered with stock mlir-opt exceeds 1e-6 at
n = 1031 in about a third of runs.
Wherever the reference is not finite (a ``-inf``
input of log_softmax) the result must match it exactly. Masked rows (all
``-inf``) must match exactly: ``masked(zero)`` gives softmax ``0.0``,
log_softmax ``-inf``, logsumexp ``-inf``; ``masked(nan)`` gives NaN
everywhere in the row. Any NaN or inf elsewhere is a failure.

Tiled and untiled runs of the same function must agree within the same
bound (measured with the untiled result as reference); the maximum
difference, and whether the runs are bit-identical, is reported.

Output: a report, one ``PASS ...`` or ``FAIL ...`` line per (algorithm,
masked mode, tile size), one per tiled-vs-untiled comparison and a final
``PASS: ...``/``FAIL: ...`` summary line (deterministic text before the
numbers, for FileCheck). The exit status is non-zero on any failure.

The ``upstream`` backend (``--backend upstream``) lowers ``linalg.softmax``
with stock ``mlir-opt`` only; it exists to validate this harness itself.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterable

import numpy as np

OPS = ("softmax", "log_softmax", "logsumexp")
ALGORITHMS = ("three_pass", "online", "exp_pair")
MASKED = ("zero", "nan")
DTYPES = ("f32", "bf16", "f16", "f64")
SLICES = ("rows", "last", "heads")

FLT_MAX = float(np.finfo(np.float32).max)
BF16_MAX = float(np.frombuffer(np.array([0x7F7F0000], dtype="<u4").tobytes(), "<f4")[0])


@dataclasses.dataclass(frozen=True)
class DType:
    name: str
    fmax: float           # largest finite value
    base_bound: float     # bound for short rows (output rounding dominates)
    mantissa_bits: int    # explicit mantissa bits (for the "large" rows)
    tiny_exp: tuple[float, float]     # log10 range of the "tiny" rows
    large_exp: tuple[float, float]    # log10 range of the "large" rows
    very_large_exp: tuple[float, float]  # log10 range of the "very_large" rows
    extreme_exp: tuple[float, float]  # log10 range of the "extreme" rows


DTYPE_INFO = {
    "f32": DType("f32", FLT_MAX, 1e-6, 23, (-44.0, -36.0), (6.0, 8.5), (8.5, 9.17),
                 (9.2, 38.47)),
    # bf16 output rounding is up to 2^-9 relative.
    "bf16": DType("bf16", BF16_MAX, 1e-2, 7, (-40.0, -36.0), (6.0, 8.5), (8.5, 9.17),
                  (9.2, 38.47)),
    # f16 output rounding is up to 2^-12 relative.
    "f16": DType("f16", 65504.0, 2e-3, 10, (-7.5, -5.0), (3.0, 4.0), (4.0, 4.5), (4.5, 4.8)),
    "f64": DType("f64", float(np.finfo(np.float64).max), 1e-14, 52, (-320.0, -300.0),
                 (6.0, 8.5), (8.5, 18.0), (18.0, 308.2)),
}

# Rows left out unless asked for with --kinds (see README.md).
OPT_IN_KINDS = frozenset({"very_large", "extreme"})


def bound_for(dtype: str, override: float | None = None) -> float:
    """Error bound of every row (see the module docstring)."""
    return override if override is not None else DTYPE_INFO[dtype].base_bound


# ---------------------------------------------------------------------------
# Number formats
# ---------------------------------------------------------------------------


def f32_to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 (round to nearest even); uint16 bits."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    rounded = np.where(nan, (b >> 16) | 0x40, rounded)
    return rounded.astype(np.uint16)


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32)


def quantize(x64: np.ndarray, dtype: str) -> tuple[np.ndarray, bytes]:
    """Round float64 values to ``dtype`` (finite values never round to an
    infinity: they saturate at the largest finite value); returns (exact
    values as float64, little-endian bytes of the ``dtype`` encoding)."""
    x64 = np.asarray(x64, dtype=np.float64)
    if dtype == "f64":
        return x64.copy(), x64.astype("<f8").tobytes()
    if dtype == "f16":
        with np.errstate(over="ignore"):
            h = x64.astype(np.float16)
        h = np.where(np.isfinite(x64) & ~np.isfinite(h),
                     np.sign(x64) * np.float16(65504.0), h).astype(np.float16)
        return h.astype(np.float64), h.astype("<f2").tobytes()
    with np.errstate(over="ignore"):
        x32 = x64.astype(np.float32)
    x32 = np.where(np.isfinite(x64) & ~np.isfinite(x32),
                   np.sign(x64) * np.float32(FLT_MAX), x32).astype(np.float32)
    if dtype == "f32":
        return x32.astype(np.float64), x32.astype("<f4").tobytes()
    bits = f32_to_bf16_bits(x32)
    finite_in = np.isfinite(x32)
    vals = bf16_bits_to_f32(bits)
    over = finite_in & ~np.isfinite(vals)
    if over.any():
        bits = np.where(over, np.where(x32 > 0, 0x7F7F, 0xFF7F), bits).astype(np.uint16)
        vals = bf16_bits_to_f32(bits)
    return vals.astype(np.float64), bits.astype("<u2").tobytes()


# ---------------------------------------------------------------------------
# Input rows
# ---------------------------------------------------------------------------


def make_rows(rng: np.random.Generator, n: int, dtype: DType, kinds: set[str] | None,
              skip: set[str]) -> list[tuple[str, np.ndarray]]:
    """Rows of length ``n`` as (kind, float64 values). Values are drawn
    every time, even for rows left out, so that a seed reproduces the same
    rows whatever --kinds says."""
    rows: list[tuple[str, np.ndarray]] = []
    ninf = -np.inf

    def add(kind: str, row: Iterable[float] | np.ndarray) -> None:
        wanted = kind in kinds if kinds is not None else kind not in OPT_IN_KINDS
        if wanted and kind not in skip:
            rows.append((kind, np.asarray(row, dtype=np.float64).reshape(n)))

    # Fresh random rows.
    add("normal", rng.normal(0.0, 1.0, n))
    add("normal_wide", rng.normal(0.0, 25.0, n))
    add("near_uniform", rng.uniform(-1e-3, 1e-3, n) + rng.uniform(-3, 3))
    add("shifted", rng.normal(rng.choice([-700.0, 700.0]), 3.0, n))
    # Hostile rows.
    add("all_neg_inf", np.full(n, ninf))
    add("pm_1e4", rng.choice([-1e4, 1e4], n) + rng.normal(0, 1, n))
    add("const_1e4", np.full(n, 1e4))
    add("near_neg_1e4", rng.normal(-1e4, 2.0, n))
    mag = 10.0 ** rng.uniform(-42, 4, n)
    mag[rng.random(n) < 0.2] = 1e4
    add("huge_tiny", mag * rng.choice([-1.0, 1.0], n))
    add("tiny", rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(*dtype.tiny_exp, n))
    if n > 1:
        r = rng.normal(0.0, 3.0, n)
        r[rng.random(n) < 0.4] = ninf
        r[rng.integers(n)] = rng.normal()
        add("some_neg_inf", r)
        r = np.full(n, ninf)
        r[-1] = rng.normal(0, 5)
        add("finite_last", r)
        r = np.full(n, ninf)
        r[0] = rng.normal(0, 5)
        add("finite_first", r)
        r = np.full(n, rng.uniform(-20, 20))
        add("const", r)
        r = np.full(n, rng.uniform(-20, 20))
        r[rng.integers(n)] += rng.uniform(0.1, 2.0)
        add("max_plus_const", r)
    # Large magnitudes that differ by a few units in the last place, so the
    # softmax is not one-hot: argument reduction of exp at large |x|.
    base = rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(*dtype.large_exp)
    ulp = 2.0 ** (np.floor(np.log2(abs(base))) - dtype.mantissa_bits)
    add("large", base + np.round(rng.normal(0.0, 2.0, n)) * ulp)
    base = rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(*dtype.very_large_exp)
    ulp = 2.0 ** (np.floor(np.log2(abs(base))) - dtype.mantissa_bits)
    add("very_large", base + np.round(rng.normal(0.0, 2.0, n)) * ulp)
    add("extreme", rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(*dtype.extreme_exp, n))
    return rows


# ---------------------------------------------------------------------------
# Reference
# ---------------------------------------------------------------------------


def reference(op: str, x: np.ndarray, masked: str) -> np.ndarray:
    """Reference along the last axis of a 2-D array, computed in long double
    (x87 extended precision where available) and rounded to float64."""
    x = np.asarray(x, dtype=np.longdouble)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=-1, keepdims=True)
        is_masked = np.isneginf(m[:, 0])
        msafe = np.where(np.isneginf(m), 0.0, m)
        e = np.exp(x - msafe)
        s = np.sum(e, axis=-1, keepdims=True)
        if op == "softmax":
            y = e / s
            fill = 0.0
        elif op == "log_softmax":
            y = x - msafe - np.log(s)
            fill = -np.inf
        else:
            y = (msafe + np.log(s))[:, 0]
            fill = -np.inf
    if masked == "nan":
        fill = np.nan
    y = np.array(y, dtype=np.float64)
    y[is_masked] = fill
    return y


def row_errors(op: str, y: np.ndarray, ref: np.ndarray,
               fmax: float = FLT_MAX) -> tuple[np.ndarray, np.ndarray]:
    """Per-row error in the documented metric, and per-row 'exact mismatch'
    flags (non-finite values that do not match the reference exactly).

    A reference beyond the largest finite output value ``fmax`` (log_softmax
    of a row spanning more than FLT_MAX) rounds to an infinity: the result
    may be that infinity."""
    with np.errstate(all="ignore"):
        if op == "logsumexp":
            y2, r2 = y[:, None], ref[:, None]
        else:
            y2, r2 = y, ref
        overflow = np.isfinite(r2) & (np.abs(r2) > fmax) & np.isinf(y2) & \
            (np.sign(y2) == np.sign(r2))
        y2 = np.where(overflow, r2, y2)
        ref_fin = np.isfinite(r2)
        # Non-finite reference: exact match (NaN matches NaN).
        exact_ok = np.where(ref_fin, True,
                            (y2 == r2) | (np.isnan(y2) & np.isnan(r2)))
        bad_nonfinite = ref_fin & ~np.isfinite(y2)
        mismatch = np.any(~exact_ok | bad_nonfinite, axis=-1)
        diff = np.where(ref_fin & np.isfinite(y2), np.abs(y2 - r2), 0.0)
        if op == "softmax":
            scale = np.max(np.where(ref_fin, np.abs(r2), 0.0), axis=-1)
            err = np.max(diff, axis=-1) / np.where(scale > 0, scale, 1.0)
        else:
            err = np.max(diff / np.maximum(1.0, np.where(ref_fin, np.abs(r2), 1.0)),
                         axis=-1)
    return err, mismatch


# ---------------------------------------------------------------------------
# Module generation
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class Group:
    """All rows of one length: one input tensor."""
    length: int
    kinds: list[str]
    values: np.ndarray  # (rows, length) float64, exact input values
    raw: bytes          # encoding of the input tensor as laid out in memory
    in_shape: tuple[int, ...]


@dataclasses.dataclass
class Kernel:
    name: str
    group: int
    algorithm: str
    masked: str


def tensor_type(shape: Iterable[int | None], elem: str) -> str:
    dims = "x".join("?" if d is None else str(d) for d in shape)
    return f"tensor<{dims}x{elem}>" if dims else f"tensor<{elem}>"


class ModuleBuilder:
    """Writes the test module: kernels and a main printing result bits."""

    def __init__(self, op: str, form: str, dtype: str, reduce_dim: int,
                 dynamic: bool, init: str, acc_type: str | None, slice_rows: str | None = None):
        self.op, self.form, self.dtype = op, form, dtype
        # The kernels take a larger tensor that holds the input
        # (tensor.extract_slice: a strided view after bufferization), see
        # SLICES.
        self.slice_rows = slice_rows
        self.reduce_dim, self.dynamic, self.init = reduce_dim, dynamic, init
        self.acc_type = acc_type
        self.elem = dtype
        # Results travel as integers of the same width (f16/bf16 widened
        # to f32 first, exactly).
        self.ibits = 64 if dtype == "f64" else 32

    def out_shape(self, in_shape: tuple[int | None, ...]) -> tuple[int | None, ...]:
        if self.op == "logsumexp":
            return tuple(d for i, d in enumerate(in_shape) if i != self.reduce_dim)
        return in_shape

    def _init_value(self, lines: list[str], ty: str, dyn_dims: list[str]) -> str:
        if self.init == "alias" and self.op != "logsumexp":
            # The input is its own destination: the op may overwrite it in
            # place only where it has finished reading it.
            return "%x"
        # A sliced input's logsumexp goes to every other element of a
        # larger destination (a strided output after bufferization).
        column = self.slice_rows is not None and self.op == "logsumexp"
        oty = ty
        if column:
            shape = ty[len("tensor<"):-1].split("x")
            ty = "tensor<" + "x".join(shape[:-1] + ["2", shape[-1]]) + ">"
        lines.append(f"  %e = tensor.empty({', '.join(dyn_dims)}) : {ty}")
        init = "%e"
        if self.init not in ("empty", "alias"):
            init = self._garbage(lines, ty)
        if not column:
            return init
        rank = len(ty.split("x")) - 1
        zeros = ", ".join(["0"] * (rank - 1))
        sizes = ", ".join(ty[len("tensor<"):-1].split("x")[:-2] + ["1"])
        ones = ", ".join(["1"] * rank)
        lines.append(f"  %col = tensor.extract_slice {init}[{zeros}, 1] [{sizes}] [{ones}] "
                     f": {ty} to {oty}")
        return "%col"

    def _garbage(self, lines: list[str], ty: str) -> str:
        # Garbage destination: the op must overwrite it, never read it.
        lines.append("  %g = arith.constant 0x7FC00000 : f32")
        if self.elem == "f32":
            lines.append("  %gv = arith.addf %g, %g : f32")
        elif self.elem == "f64":
            lines.append("  %gv = arith.extf %g : f32 to f64")
        else:
            lines.append(f"  %gv = arith.truncf %g : f32 to {self.elem}")
        lines.append(f"  %i = linalg.fill ins(%gv : {self.elem}) outs(%e : {ty}) -> {ty}")
        return "%i"

    def kernel(self, k: Kernel, in_shape: tuple[int, ...]) -> str:
        """One function computing the op on one input shape (or, dynamic,
        on every shape)."""
        ishape: tuple[int | None, ...] = (None,) * len(in_shape) if self.dynamic else in_shape
        oshape = self.out_shape(ishape)
        ity, oty = tensor_type(ishape, self.elem), tensor_type(oshape, self.elem)
        if self.slice_rows:
            bty = tensor_type(self.big_shape(in_shape), self.elem)
            lines = [f"func.func @{k.name}(%xb: {bty}) -> {oty} {{",
                     f"  %x = tensor.extract_slice %xb{self.slice_spec(in_shape)} "
                     f": {bty} to {ity}"]
        else:
            lines = [f"func.func @{k.name}(%x: {ity}) -> {oty} {{"]
        dyn_dims: list[str] = []
        if self.dynamic:
            for i in range(len(ishape)):
                if i == self.reduce_dim and self.op == "logsumexp":
                    continue
                lines.append(f"  %c{i} = arith.constant {i} : index")
                lines.append(f"  %d{i} = tensor.dim %x, %c{i} : {ity}")
                dyn_dims.append(f"%d{i}")
        init = self._init_value(lines, oty, dyn_dims)
        if self.form == "dialect":
            alg = "" if k.algorithm == "auto" else f" algorithm({k.algorithm})"
            attrs = f" {{acc_type = {self.acc_type}}}" if self.acc_type else ""
            lines.append(
                f"  %y = softmax.{self.op} ins(%x : {ity}) outs({init} : {oty}) "
                f"dimension({self.reduce_dim}) masked({k.masked}){alg}{attrs}")
        else:
            assert self.op == "softmax"
            lines.append(
                f"  %y = linalg.softmax dimension({self.reduce_dim}) ins(%x : {ity}) "
                f"outs({init} : {oty}) -> {oty}")
        lines.append(f"  return %y : {oty}")
        lines.append("}")
        return "\n".join(lines)

    def big_shape(self, in_shape: tuple[int, ...]) -> tuple[int, ...]:
        if self.slice_rows == "rows":     # every other row, from column 1
            return (2 * in_shape[0], in_shape[1] + 3)
        if self.slice_rows == "last":     # [R, 1, n] at position 2 of 3
            return (in_shape[0], 3, in_shape[2] + 3)
        return (3, in_shape[1] + 1, in_shape[2] + 3)   # heads: [2, R, n] at [1, 1, 1]

    def slice_spec(self, in_shape: tuple[int, ...]) -> str:
        """Offsets, sizes and strides of the input in big_shape."""
        offsets = {"rows": (0, 1), "last": (0, 2, 1), "heads": (1, 1, 1)}[self.slice_rows]
        strides = (2, 1) if self.slice_rows == "rows" else (1, 1, 1)
        def join(v: tuple[int, ...]) -> str:
            return "[" + ", ".join(map(str, v)) + "]"
        return f"{join(offsets)} {join(in_shape)} {join(strides)}"

    def print_bits(self, lines: list[str], v: str, shape: tuple[int, ...], idx: int) -> None:
        """Convert ``v`` to its bit pattern and print it (printMemrefI32/I64)."""
        ib = f"i{self.ibits}"
        ty = tensor_type(shape, self.elem)
        ity = tensor_type(shape, ib)
        rank = len(shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        amap = f"affine_map<({dims}) -> ({dims})>"
        its = ", ".join(['"parallel"'] * rank)
        lines.append(f"  %bi{idx} = tensor.empty() : {ity}")
        lines.append(
            f"  %b{idx} = linalg.generic {{indexing_maps = [{amap}, {amap}], "
            f"iterator_types = [{its}]}} ins({v} : {ty}) outs(%bi{idx} : {ity}) {{")
        lines.append(f"  ^bb0(%a: {self.elem}, %o: {ib}):")
        if self.elem in ("f32", "f64"):
            lines.append(f"    %c = arith.bitcast %a : {self.elem} to {ib}")
        else:
            lines.append(f"    %f = arith.extf %a : {self.elem} to f32")
            lines.append("    %c = arith.bitcast %f : f32 to i32")
        lines.append(f"    linalg.yield %c : {ib}")
        lines.append(f"  }} -> {ity}")
        mty = ity.replace("tensor<", "memref<")
        uty = f"memref<*x{ib}>"
        lines.append(f"  %m{idx} = bufferization.to_buffer %b{idx} : {ity} to {mty}")
        lines.append(f"  %u{idx} = memref.cast %m{idx} : {mty} to {uty}")
        lines.append(f"  call @printMemrefI{self.ibits}(%u{idx}) : ({uty}) -> ()")

    def module(self, groups: list[Group], kernels: list[Kernel]) -> str:
        ib = f"i{self.ibits}"
        out = ["// Generated by softmax_check.py; inputs are bit-exact hex constants.",
               "module {",
               f"func.func private @printMemrefI{self.ibits}(memref<*x{ib}>) "
               "attributes {llvm.emit_c_interface}"]
        seen: set[str] = set()
        for k in kernels:
            if k.name in seen:
                continue
            seen.add(k.name)
            out.append(self.kernel(k, groups[k.group].in_shape))
        main = ["func.func @main() {"]
        for gi, g in enumerate(groups):
            ty = tensor_type(g.in_shape, self.elem)
            main.append(f'  %x{gi} = arith.constant dense<"0x{g.raw.hex().upper()}"> : {ty}')
            if self.slice_rows:
                bty = tensor_type(self.big_shape(g.in_shape), self.elem)
                main.append(f"  %f{gi} = arith.constant 7.0 : {self.elem}")
                main.append(f"  %be{gi} = tensor.empty() : {bty}")
                main.append(f"  %bf{gi} = linalg.fill ins(%f{gi} : {self.elem}) "
                            f"outs(%be{gi} : {bty}) -> {bty}")
                main.append(f"  %xb{gi} = tensor.insert_slice %x{gi} into "
                            f"%bf{gi}{self.slice_spec(g.in_shape)} : {ty} into {bty}")
        for ki, k in enumerate(kernels):
            g = groups[k.group]
            sty = tensor_type(g.in_shape, self.elem)
            oshape = self.out_shape(g.in_shape)
            soty = tensor_type(oshape, self.elem)
            if self.dynamic:
                dyn = (None,) * len(g.in_shape)
                dty = tensor_type(dyn, self.elem)
                doty = tensor_type(self.out_shape(dyn), self.elem)
                main.append(f"  %xd{ki} = tensor.cast %x{k.group} : {sty} to {dty}")
                main.append(f"  %yd{ki} = call @{k.name}(%xd{ki}) : ({dty}) -> {doty}")
                main.append(f"  %y{ki} = tensor.cast %yd{ki} : {doty} to {soty}")
            elif self.slice_rows:
                bty = tensor_type(self.big_shape(g.in_shape), self.elem)
                main.append(f"  %y{ki} = call @{k.name}(%xb{k.group}) : ({bty}) -> {soty}")
            else:
                main.append(f"  %y{ki} = call @{k.name}(%x{k.group}) : ({sty}) -> {soty}")
            self.print_bits(main, f"%y{ki}", oshape, ki)  # type: ignore[arg-type]
        main.append("  return")
        main.append("}")
        out.append("\n".join(main))
        out.append("}")
        return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

MEMREF_RE = re.compile(r"Unranked Memref base@ = \S+ rank = (\d+) offset = \d+ "
                       r"sizes = \[([^\]]*)\] strides = \[[^\]]*\] data =")
INT_RE = re.compile(r"-?\d+")


def parse_memrefs(text: str, bits: int = 32) -> list[np.ndarray]:
    """Parse the output of printMemrefI32/I64 calls; return the printed
    bit patterns reinterpreted as float32/float64, widened to float64."""
    heads = list(MEMREF_RE.finditer(text))
    result = []
    utype, ftype = (np.uint32, np.float32) if bits == 32 else (np.uint64, np.float64)
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        sizes = [int(s) for s in h.group(2).replace(",", " ").split()]
        ints = [int(v) for v in INT_RE.findall(text[h.end():end])]
        count = int(np.prod(sizes)) if sizes else 1
        if len(ints) != count:
            raise RuntimeError(f"memref #{i}: expected {count} values, got {len(ints)}")
        arr = np.array([v & ((1 << bits) - 1) for v in ints], dtype=utype)
        result.append(arr.view(ftype).astype(np.float64).reshape(sizes))
    return result


class ToolError(RuntimeError):
    pass


def run_cmd(cmd: list[str], stdin: bytes | None, what: str, timeout: float) -> bytes:
    """Run a tool; raise ToolError with its stderr if it fails. A tool that
    cannot be started or dies from a signal is retried once, two seconds
    later: the build may be relinking it under us."""
    for attempt in (1, 2):
        try:
            p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ToolError(f"{what} timed out after {timeout}s: {shlex.join(cmd)}")
        except OSError as e:
            if attempt == 1:
                time.sleep(2.0)
                continue
            raise ToolError(f"{what} could not be started: {shlex.join(cmd)}: {e}")
        if p.returncode < 0 and attempt == 1:
            time.sleep(2.0)
            continue
        if p.returncode != 0:
            raise ToolError(f"{what} failed (exit {p.returncode}): {shlex.join(cmd)}\n"
                            + p.stderr.decode(errors="replace")[-4000:])
        return p.stdout
    raise AssertionError("unreachable")


@dataclasses.dataclass
class Tools:
    softmax_opt: str
    mlir_opt: str
    mlir_runner: str
    runner_libs: str
    backend: str
    timeout: float
    runner_args: list[str]
    pipeline_options: str = ""
    transform_script: str | None = None

    def lower_cmd(self, path: str, form: str, algorithm: str | None, tile: int) -> list[str]:
        if self.backend == "upstream":
            td = Path(__file__).with_name("decompose_linalg_softmax.mlir")
            return [self.mlir_opt, path,
                    f"--transform-preload-library=transform-library-paths={td}",
                    "--transform-interpreter", "--canonicalize",
                    "--one-shot-bufferize=bufferize-function-boundaries",
                    "--convert-linalg-to-loops", "--convert-scf-to-cf",
                    "--expand-strided-metadata", "--finalize-memref-to-llvm",
                    "--convert-to-llvm", "--reconcile-unrealized-casts"]
        if self.transform_script:
            # The transform route: the script maps the ops, the passes of
            # softmax-to-cpu after the mapping do the rest.
            return [self.softmax_opt, path,
                    "--transform-preload-library=transform-library-paths="
                    + self.transform_script,
                    "--transform-interpreter",
                    "--softmax-to-cpu-after-mapping"
                    + (f"={self.pipeline_options}" if self.pipeline_options else "")]
        cmd = [self.softmax_opt, path]
        if form == "linalg":
            cmd.append("--softmax-raise")
            if algorithm != "auto":
                cmd.append(f"--softmax-select-algorithm=force={algorithm}")
        # Untiled runs take the pipeline's default path (the vector mapping)
        # with --pipeline-options; tiled runs take the scalar path, whose
        # reduction tiling they exercise, and so check one against the other.
        opts = [f"vector-width=0 reduction-tile-size={tile}"] if tile else []
        if self.pipeline_options and not tile:
            opts.append(self.pipeline_options)
        cmd.append("--softmax-to-cpu" + (f"={' '.join(opts)}" if opts else ""))
        return cmd

    def run_cmd_line(self) -> list[str]:
        libs = self.runner_libs
        for prefix in ("--shared-libs=", "-shared-libs="):
            if libs.startswith(prefix):
                libs = libs[len(prefix):]
        libs = ",".join(l for l in re.split(r"[,\s]+", libs) if l)
        return [self.mlir_runner, "-e", "main", "-entry-point-result=void",
                f"-shared-libs={libs}", *self.runner_args]


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def csv(s: str) -> list[str]:
    return [v.strip() for v in s.split(",") if v.strip()]


#: The seed of every integration test unless told otherwise: a failure in CI
#: repeats on the next run. Random sweeps are scripts/soak.sh's job.
DEFAULT_SEED = 20261201


def resolve_seed(arg: str | None) -> int:
    """``--seed``'s value: a number, ``random`` (fresh from os.urandom), or
    absent, then $SOFTMAX_TEST_SEED (a number or ``random``) or
    DEFAULT_SEED."""
    value = arg if arg is not None else os.environ.get("SOFTMAX_TEST_SEED") or None
    if value is None:
        return DEFAULT_SEED
    if value == "random":
        return int.from_bytes(os.urandom(4), "little")
    return int(value)


def default_tool(env: str, *candidates: str) -> str:
    if os.environ.get(env):
        return os.environ[env]
    for c in candidates:
        if Path(c).exists():
            return c
    return candidates[-1]


def describe_row_failure(op: str, g: Group, r: int, y: np.ndarray, ref: np.ndarray) -> str:
    """The worst element of a failing row, for the report."""
    yr, rr = y[r], ref[r]
    if op == "logsumexp":
        return f"got {yr!r} expected {rr!r}"
    with np.errstate(all="ignore"):
        d = np.where(np.isfinite(rr) & np.isfinite(yr), np.abs(yr - rr), np.inf)
        d = np.where((yr == rr) | (np.isnan(yr) & np.isnan(rr)), 0, d)
    j = int(np.argmax(d))
    return f"element {j}: x={g.values[r, j]!r} got {yr[j]!r} expected {rr[j]!r}"


def self_test() -> int:
    """Checks of the harness's own number handling (no compiler involved)."""
    # bf16 rounding: ties to even, saturation, exact round trip.
    f = np.array([1.0, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 3.4e38, -np.inf], dtype=np.float64)
    vals, raw = quantize(f, "bf16")
    assert vals[0] == 1.0 and vals[1] == 1.0 and vals[2] == 1.0 + 2.0 ** -6, vals
    assert vals[3] == BF16_MAX and np.isneginf(vals[4]), vals
    assert raw[:2] == bytes.fromhex("803f"), raw.hex()
    vals, raw = quantize(np.array([1e39, 0.1]), "f32")
    assert vals[0] == FLT_MAX and raw[4:] == np.float32(0.1).tobytes()
    vals, _ = quantize(np.array([1e6, 1e-9]), "f16")
    assert vals[0] == 65504.0 and vals[1] == 0.0
    # Printed bit patterns (negative i32 as printed by printMemrefI32).
    text = ("Unranked Memref base@ = 0x1 rank = 2 offset = 0 sizes = [1, 3] "
            "strides = [3, 1] data = \n[[1065353216,   -8388608,   2143289344]]\n")
    [y] = parse_memrefs(text)
    assert y.shape == (1, 3) and y[0, 0] == 1.0 and np.isneginf(y[0, 1]) and np.isnan(y[0, 2])
    # Reference and masked rows.
    x = np.array([[0.0, np.log(3.0)], [-np.inf, -np.inf]])
    for m in MASKED:
        ref = reference("softmax", x, m)
        assert np.allclose(ref[0], [0.25, 0.75])
        assert (np.isnan(ref[1]).all() if m == "nan" else (ref[1] == 0).all())
    lse = reference("logsumexp", x, "zero")
    assert np.isclose(lse[0], np.log(4.0)) and np.isneginf(lse[1])
    # The metric catches a relative error just above the bound, a wrong
    # masked value and a NaN; it accepts the overflow of log_softmax to -inf.
    ref = reference("softmax", x, "zero")
    err, mism = row_errors("softmax", ref * (1 + 2e-6), ref)
    assert err[0] > 1e-6 and not mism.any()
    bad = ref.copy()
    bad[1, 0] = np.nan
    assert row_errors("softmax", bad, ref)[1][1]
    bad = ref.copy()
    bad[0, 0] = np.nan
    assert row_errors("softmax", bad, ref)[1][0]
    ls = np.array([[-3.9e38, 0.0]])
    assert not row_errors("log_softmax", np.array([[-np.inf, 0.0]]), ls)[1].any()
    assert row_errors("log_softmax", np.array([[-np.inf, 0.0]]), np.array([[-1.0, 0.0]]))[1].any()
    print("PASS: self-test")
    return 0


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv == ["--self-test"]:
        return self_test()
    here = Path(__file__).resolve()
    repo = here.parents[3]
    llvm = Path("/usr/lib/llvm-22")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=OPS, required=True)
    ap.add_argument("--form", choices=("dialect", "linalg"), default="dialect",
                    help="dialect: softmax.* with algorithm(X); linalg: linalg.softmax "
                         "raised by --softmax-raise, algorithm forced by "
                         "--softmax-select-algorithm=force=X")
    ap.add_argument("--algorithms", type=csv, default=list(ALGORITHMS),
                    help="comma-separated subset of three_pass,online,exp_pair,auto "
                         "(default: the first three; auto: no algorithm/force given)")
    ap.add_argument("--dtype", choices=DTYPES, default="f32")
    ap.add_argument("--acc-type", choices=("f32", "f64"), default=None,
                    help="add {acc_type = T} to the ops (dialect form)")
    ap.add_argument("--masked", type=csv, default=list(MASKED),
                    help="comma-separated subset of zero,nan (linalg form: nan only)")
    ap.add_argument("--tile-sizes", type=lambda s: [int(v) for v in csv(s)], default=[0, 64],
                    help="reduction tile sizes, 0 = untiled (default 0,64; 0 is always run)")
    ap.add_argument("--lengths", type=lambda s: [int(v) for v in csv(s)],
                    default=[1, 7, 64, 100, 131, 1031],
                    help="row lengths (default 1,7,64,100,131,1031)")
    ap.add_argument("--kinds", type=csv, default=None,
                    help="only these row kinds (default: all but " + ",".join(sorted(OPT_IN_KINDS))
                         + ")")
    ap.add_argument("--skip-kinds", type=csv, default=[], help="leave out these row kinds")
    ap.add_argument("--reduce-dim", choices=("last", "first", "middle"), default="last",
                    help="last: R x n, dimension(1) (default); first: n x R, dimension(0); "
                         "middle: R x n x 2, dimension(1)")
    ap.add_argument("--dynamic", action="store_true",
                    help="kernels take tensor<?x?x..> (main casts); one kernel serves all lengths")
    ap.add_argument("--slice", nargs="?", const="rows", choices=SLICES, default=None,
                    help="the input is a tensor.extract_slice of a larger tensor: rows (the "
                         "default) every other row from its second column; last [R, 1, n], "
                         "position 2 of 3 ([:, -1:, :] of logits); heads [2, R, n] of "
                         "[3, R + 1, n + 3] (outer strides no reshape merges); a logsumexp "
                         "writes every other element of a larger destination. Static, last "
                         "dimension, init empty or nan")
    ap.add_argument("--init", choices=("empty", "nan", "alias"), default="empty",
                    help="destination: tensor.empty, filled with NaN (must be overwritten), "
                         "or the input itself (alias; logsumexp: empty)")
    ap.add_argument("--seed", default=None,
                    help=f"a number, or 'random' (default: $SOFTMAX_TEST_SEED or {DEFAULT_SEED})")
    ap.add_argument("--tolerance", type=float, default=None,
                    help="replace every error bound by this flat value")
    ap.add_argument("--backend", choices=("softmax", "upstream"), default="softmax",
                    help="upstream: stock mlir-opt on linalg.softmax, to test this harness")
    ap.add_argument("--softmax-opt", default=default_tool(
        "SOFTMAX_OPT", str(repo / "build" / "bin" / "softmax-opt")))
    ap.add_argument("--mlir-opt", default=default_tool("MLIR_OPT", str(llvm / "bin" / "mlir-opt")))
    ap.add_argument("--mlir-runner", default=default_tool(
        "MLIR_RUNNER", str(llvm / "bin" / "mlir-runner")))
    ap.add_argument("--runner-libs", default=",".join(
        str(llvm / "lib" / n) for n in ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so")),
        help="shared libraries for mlir-runner (comma-separated; a '-shared-libs=' prefix "
             "is allowed)")
    ap.add_argument("--runner-arg", action="append", default=[],
                    help="extra mlir-runner argument (repeatable)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--pipeline-options", default="",
                    help="softmax-to-cpu options of the untiled runs, e.g. "
                         "'vector-width=8 threads=2 three-pass=reload'")
    ap.add_argument("--transform-script", default=None, metavar="PATH",
                    help="lower through this transform script (softmax-opt "
                         "--transform-interpreter) and softmax-to-cpu-after-mapping "
                         "instead of softmax-to-cpu (dialect form, untiled only; "
                         "--pipeline-options go to softmax-to-cpu-after-mapping)")
    ap.add_argument("--keep", metavar="DIR", help="write modules and runner outputs to DIR")
    ap.add_argument("--emit", action="store_true", help="print the first module and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="per-length details")
    ap.add_argument("--self-test", action="store_true",
                    help="check the harness's own number handling and exit (alone)")
    args = ap.parse_args(argv)

    for a in args.algorithms:
        if a not in ALGORITHMS + ("auto",):
            ap.error(f"unknown algorithm {a!r}")
    for m in args.masked:
        if m not in MASKED:
            ap.error(f"unknown masked mode {m!r}")
    if args.form == "linalg":
        if args.op != "softmax":
            ap.error("--form linalg exists for softmax only (linalg.softmax)")
        if args.acc_type:
            ap.error("--acc-type needs --form dialect")
        args.masked = ["nan"]  # linalg.softmax semantics; raised as masked(nan)
    if args.backend == "upstream":
        if args.form != "linalg":
            ap.error("--backend upstream needs --form linalg")
        args.algorithms = args.algorithms[:1]
        args.tile_sizes = [0]
    if args.transform_script:
        if args.backend != "softmax" or args.form != "dialect":
            ap.error("--transform-script needs --backend softmax and --form dialect")
        if args.tile_sizes != [0]:
            ap.error("--transform-script runs untiled only (--tile-sizes 0)")
    if 0 not in args.tile_sizes:
        args.tile_sizes = [0] + args.tile_sizes
    if args.kinds:
        known = {k for k, _ in make_rows(np.random.default_rng(0), 2, DTYPE_INFO["f32"],
                                         None, set())} | OPT_IN_KINDS
        for k in args.kinds:
            if k not in known:
                ap.error(f"unknown row kind {k!r} (known: {', '.join(sorted(known))})")

    if args.slice and (args.dynamic or args.reduce_dim != "last" or args.init == "alias"):
        ap.error("--slice takes static shapes reduced along the last dimension, init empty or nan")
    seed = resolve_seed(args.seed)
    rng = np.random.default_rng(seed)
    reduce_dim = 0 if args.reduce_dim == "first" else 1
    if args.slice in ("last", "heads"):
        reduce_dim = 2
    info = DTYPE_INFO[args.dtype]
    tag = (f"op={args.op} form={args.form} dtype={args.dtype}"
           f"{f' acc_type={args.acc_type}' if args.acc_type else ''}"
           f"{' dynamic' if args.dynamic else ''}"
           f"{'' if args.reduce_dim == 'last' else f' reduce-dim={args.reduce_dim}'}"
           f"{f' init={args.init}' if args.init != 'empty' else ''}"
           f"{'' if not args.slice else ' slice' if args.slice == 'rows' else f' slice={args.slice}'}")
    reproduce: list[str] = []
    skip_next = False
    for a in list(argv if argv is not None else sys.argv[1:]):
        if skip_next:
            skip_next = False
        elif a == "--seed":
            skip_next = True
        elif not a.startswith("--seed="):
            reproduce.append(a)
    if not args.emit:
        print(f"softmax_check: {tag}")
        print(f"seed = {seed}  (reproduce: {Path(sys.argv[0]).name} {shlex.join(reproduce)} "
              f"--seed {seed})")

    # Inputs: one tensor per row length.
    groups: list[Group] = []
    kinds = set(args.kinds) if args.kinds else None
    for n in args.lengths:
        rows = make_rows(rng, n, info, kinds, set(args.skip_kinds))
        if not rows:
            continue
        vals, _ = quantize(np.stack([r for _, r in rows]), args.dtype)
        row_kinds = [k for k, _ in rows]
        if args.slice == "last":           # R x 1 x n, dimension(2)
            layout = vals[:, None, :]
        elif args.slice == "heads":        # 2 x R x n, dimension(2): the rows,
            # then the rows in reverse order.
            layout = np.stack([vals, vals[::-1]])
            vals = np.concatenate([vals, vals[::-1]])
            row_kinds = row_kinds + row_kinds[::-1]
        elif args.reduce_dim == "last":    # R x n, dimension(1)
            layout = vals
        elif args.reduce_dim == "first":   # n x R, dimension(0)
            layout = vals.T
        else:                              # R x n x 2, dimension(1): the rows,
            # and the rows in reverse order, interleaved in the last dimension.
            layout = np.stack([vals, vals[::-1]], axis=-1)
            vals = np.concatenate([vals, vals[::-1]])
            row_kinds = row_kinds + row_kinds[::-1]
        layout = np.ascontiguousarray(layout)
        _, raw = quantize(layout, args.dtype)
        groups.append(Group(n, row_kinds, vals, raw, tuple(layout.shape)))
    if not groups:
        ap.error("no rows selected")

    builder = ModuleBuilder(args.op, args.form, args.dtype, reduce_dim, args.dynamic, args.init,
                            args.acc_type, args.slice)
    tools = Tools(args.softmax_opt, args.mlir_opt, args.mlir_runner, args.runner_libs,
                  args.backend, args.timeout, args.runner_arg,
                  args.pipeline_options, args.transform_script)

    # Pipeline configurations, one module (one JIT) each. Dialect form: the
    # algorithm is in the op, one module per tile size; linalg form: the
    # algorithm is a pipeline option, one module per (algorithm, tile size).
    configs: list[tuple[str | None, int]] = []
    for t in args.tile_sizes:
        if args.form == "linalg":
            configs += [(a, t) for a in args.algorithms]
        else:
            configs.append((None, t))

    def kernels_for(alg: str | None) -> list[Kernel]:
        ks = []
        for a in ([alg] if alg else args.algorithms):
            for m in args.masked:
                for gi in range(len(groups)):
                    if args.form == "linalg":
                        name = "k_linalg"
                    else:
                        name = f"k_{a}_{m}"
                    if not args.dynamic:
                        name += f"_{gi}"
                    ks.append(Kernel(name, gi, a, m))
        return ks

    keep = Path(args.keep) if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="softmax_check_")
    workdir = keep or Path(tmp.name)

    failures: list[str] = []
    results: dict[tuple[str, str, int, int], np.ndarray] = {}  # (alg, masked, group, tile)
    t_start = time.monotonic()
    for alg, tile in configs:
        kernels = kernels_for(alg)
        text = builder.module(groups, kernels)
        label = f"tile={tile}" + (f"_{alg}" if alg else "")
        path = workdir / f"{args.op}_{args.dtype}_{label}.mlir"
        path.write_text(text)
        if args.emit:
            sys.stdout.write(text)
            return 0
        t0 = time.monotonic()
        try:
            if args.form == "linalg" and args.backend == "softmax":
                # The raise must really happen (and the force must stick),
                # otherwise this would test some other lowering.
                cmd = [tools.softmax_opt, str(path), "--softmax-raise"]
                if alg != "auto":
                    cmd.append(f"--softmax-select-algorithm=force={alg}")
                raised = run_cmd(cmd, None, "softmax-opt (raise)", args.timeout).decode()
                want = 1 if args.dynamic else len(groups)
                n_ops = raised.count("softmax.softmax ")
                n_forced = raised.count(f"algorithm({alg})")
                if "linalg.softmax" in raised or n_ops != want or (
                        alg != "auto" and n_forced != want):
                    msg = (f"raise: expected {want} softmax.softmax"
                           f"{'' if alg == 'auto' else f' ... algorithm({alg})'}, found "
                           f"{n_ops} ({n_forced} forced)"
                           f"{', linalg.softmax left' if 'linalg.softmax' in raised else ''}")
                    print(f"FAIL {label}: {msg}")
                    failures.append(msg)
            llvm_ir = run_cmd(tools.lower_cmd(str(path), args.form, alg, tile), None,
                              "lowering", args.timeout)
            out = run_cmd(tools.run_cmd_line(), llvm_ir, "mlir-runner", args.timeout).decode()
        except ToolError as e:
            print(f"FAIL {label}: {e}")
            failures.append(f"{label}: tool failure")
            continue
        if keep:
            (workdir / f"{path.stem}.out").write_text(out)
        try:
            outs = parse_memrefs(out, builder.ibits)
            if len(outs) != len(kernels):
                raise RuntimeError(f"expected {len(kernels)} printed memrefs, got {len(outs)}")
        except RuntimeError as e:
            print(f"FAIL {label}: cannot parse runner output: {e}")
            failures.append(f"{label}: bad output")
            continue
        print(f"  ran {label}: {len(kernels)} kernels, {time.monotonic() - t0:.2f}s")
        for k, y in zip(kernels, outs):
            if args.reduce_dim == "first" and args.op != "logsumexp":
                y = y.T
            elif args.reduce_dim == "middle":  # back to the 2R rows of the group
                y = np.concatenate([y[..., 0], y[..., 1]])
            elif args.slice in ("last", "heads"):
                y = y.reshape(-1, *y.shape[2:]) if args.op != "logsumexp" else y.reshape(-1)
            results[(k.algorithm, k.masked, k.group, tile)] = y

    def bounds_of(g: Group) -> np.ndarray:
        return np.full(len(g.kinds), bound_for(args.dtype, args.tolerance))

    where = f"{args.op} {args.dtype}"
    # Every result against the reference.
    for alg in args.algorithms:
        for m in args.masked:
            for tile in args.tile_sizes:
                worst, worst_where, worst_bound = 0.0, "", 0.0
                nbad, missing = 0, False
                for gi, g in enumerate(groups):
                    y = results.get((alg, m, gi, tile))
                    if y is None:
                        missing = True
                        continue
                    ref = reference(args.op, g.values, m)
                    bounds = bounds_of(g)
                    err, mism = row_errors(args.op, y, ref, info.fmax)
                    bad = mism | ~(err <= bounds)
                    for r in np.nonzero(bad)[0]:
                        nbad += 1
                        msg = (f"{where} algorithm={alg} masked={m} tile={tile} "
                               f"len={g.length} row={r} kind={g.kinds[r]}: err={err[r]:.3e} "
                               f"(bound {bounds[r]:.3g})"
                               f"{' non-finite mismatch' if mism[r] else ''}; "
                               f"{describe_row_failure(args.op, g, r, y, ref)}")
                        print(f"  MISMATCH {msg}")
                        failures.append(msg)
                    ok_rows = np.isfinite(err) & ~mism
                    if ok_rows.any():
                        r = int(np.argmax(np.where(ok_rows, err, -1)))
                        if err[r] >= worst:
                            worst, worst_bound = float(err[r]), float(bounds[r])
                            worst_where = f"len={g.length} kind={g.kinds[r]}"
                    if args.verbose:
                        r = int(np.nanargmax(np.where(ok_rows, err, np.nan))) \
                            if ok_rows.any() else 0
                        print(f"    {alg} masked={m} tile={tile} len={g.length}: "
                              f"max err {err[r]:.3e} ({g.kinds[r]})")
                extra = ""
                if missing:
                    extra += " (no result)"
                    failures.append(f"{alg} {m} tile={tile}: no result")
                if nbad:
                    extra += f"; {nbad} rows failed"
                status = "PASS" if not nbad and not missing else "FAIL"
                if worst_where:
                    figures = f"max err {worst:.3e} at {worst_where} (bound {worst_bound:.2e})"
                else:
                    figures = "no rows checked"
                print(f"{status} {where} algorithm={alg} masked={m} tile={tile}: "
                      f"{figures}{extra}")

    # Tiled against untiled.
    for alg in args.algorithms:
        for m in args.masked:
            for tile in args.tile_sizes:
                if tile == 0:
                    continue
                worst, identical, nbad, have = 0.0, True, 0, True
                for gi, g in enumerate(groups):
                    y0 = results.get((alg, m, gi, 0))
                    yt = results.get((alg, m, gi, tile))
                    if y0 is None or yt is None:
                        have = False
                        continue
                    identical &= bool(np.all((y0 == yt) | (np.isnan(y0) & np.isnan(yt))))
                    bounds = bounds_of(g)
                    err, mism = row_errors(args.op, yt, y0, info.fmax)
                    for r in np.nonzero(mism | ~(err <= bounds))[0]:
                        nbad += 1
                        msg = (f"tiled vs untiled {where} algorithm={alg} masked={m} "
                               f"tile={tile} len={g.length} row={r} kind={g.kinds[r]}: "
                               f"diff={err[r]:.3e}; "
                               f"{describe_row_failure(args.op, g, r, yt, y0)} (untiled)")
                        print(f"  MISMATCH {msg}")
                        failures.append(msg)
                    fin = err[np.isfinite(err)]
                    if fin.size:
                        worst = max(worst, float(fin.max()))
                if not have:
                    continue
                print(f"{'FAIL' if nbad else 'PASS'} tiled-vs-untiled {where} algorithm={alg} "
                      f"masked={m} tile={tile}: max diff {worst:.3e}"
                      f"{' (bit-identical)' if identical else ''}"
                      f"{f'; {nbad} rows differ' if nbad else ''}")

    elapsed = time.monotonic() - t_start
    if failures:
        print(f"FAIL: {len(failures)} failures ({tag}, seed {seed}, {elapsed:.1f}s)")
        return 1
    print(f"PASS: all checks ({tag}, seed {seed}, {elapsed:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
