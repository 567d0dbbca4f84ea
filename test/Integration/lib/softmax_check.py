#!/usr/bin/env python3
"""Execution-test harness for the softmax dialect on the CPU pipeline.

For one op (``softmax``, ``log_softmax`` or ``logsumexp``) and one *form*
(``dialect``: the ``softmax.*`` op with an explicit ``algorithm(...)``;
``linalg``: upstream ``linalg.softmax`` raised by ``--softmax-raise`` with
``--softmax-select-algorithm="force=ALG"``) this script

1. generates FRESH input rows every run (the seed comes from ``os.urandom``
   unless ``--seed`` is given, and is printed so that a failure can be
   reproduced) plus hostile rows: all ``-inf`` (masked), ``+-1e4`` logits,
   mixed huge and tiny magnitudes (down to subnormals), rows with some
   ``-inf``, a single finite value at either end (whole tiles of ``-inf``),
   constant rows, values near ``+-FLT_MAX``; at several row lengths (1,
   primes 7/131/1031, a multiple of the tile size and lengths that are not).
   Zero-only data is never used;
2. writes ONE module per pipeline configuration (tile size, and for the
   linalg form the forced algorithm), with one function per (tensor shape,
   algorithm, masked mode). Inputs are exact little-endian hex dense
   constants (``dense<"0x...">``), so the kernel sees bit-exactly the values
   the reference uses. ``main`` converts every result to its i32 bit pattern
   (f32: ``arith.bitcast``; bf16: ``arith.extf`` to f32, then bitcast, both in
   a ``linalg.generic``) and prints it with ``printMemrefI32``;
3. lowers the module with ``softmax-opt ... --softmax-to-cpu[=reduction-tile-size=N]``,
   runs it with ``mlir-runner``, parses the printed memrefs and compares them
   with a float64 numpy reference computed from the rounded inputs.

Error metric (per row; the reported figure is the maximum over rows):

* softmax:      ``max_j |y_j - ref_j| / max_j |ref_j|``  (normwise relative
  error in the inf-norm; the softmax of a row has entries of wildly
  different magnitude, elementwise relative error of tiny entries is
  meaningless);
* log_softmax:  ``max_j |y_j - ref_j| / max(1, |ref_j|)``;
* logsumexp:    ``|y - ref| / max(1, |ref|)``.

Bounds: f32 ``<= max(1e-6, 2 sqrt(n) u)`` with ``u = 2^-24`` and ``n`` the
row length, bf16 ``<= 1e-2`` (one bf16 rounding of the output is up to
2^-9 relative; the f32 accumulation error is far below that). The f32
bound is 1e-6 up to n = 70; beyond, it grows like the typical error of
recursive f32 summation of n positive terms (relative standard deviation
about ``sqrt(n) u / 3``): upstream ``linalg.softmax`` itself, lowered with
stock mlir-opt, exceeds a flat 1e-6 in about a third of runs at n = 1031
(observed up to 1.6e-6, and 3.4e-6 at n = 4096), so a flat bound would be
flaky, while ``2 sqrt(n) u`` (3.8e-6 at n = 1031) is six standard
deviations away. ``--tolerance`` replaces the bound by a flat value.
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
DTYPES = ("f32", "bf16")
BOUNDS = {"f32": 1e-6, "bf16": 1e-2}
F32_UNIT_ROUNDOFF = 2.0 ** -24


def bound_for(dtype: str, n: int, override: float | None = None) -> float:
    """Error bound for rows of length ``n`` (see the module docstring)."""
    if override is not None:
        return override
    if dtype == "f32":
        return max(BOUNDS["f32"], 2.0 * np.sqrt(n) * F32_UNIT_ROUNDOFF)
    return BOUNDS[dtype]

FLT_MAX = float(np.finfo(np.float32).max)

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
    """Round float64 values to ``dtype``; returns (exact values as float64,
    little-endian raw bytes of the ``dtype`` encoding)."""
    x32 = x64.astype(np.float32)
    # Do not let a finite float64 overflow to inf by rounding.
    x32 = np.where(np.isfinite(x64) & ~np.isfinite(x32),
                   np.sign(x64) * np.float32(FLT_MAX), x32).astype(np.float32)
    if dtype == "f32":
        return x32.astype(np.float64), x32.astype("<f4").tobytes()
    bits = f32_to_bf16_bits(x32)
    finite_in = np.isfinite(x32)
    vals = bf16_bits_to_f32(bits)
    # Clamp values that rounded up to inf back to the largest bf16.
    over = finite_in & ~np.isfinite(vals)
    if over.any():
        bits = np.where(over, np.where(x32 > 0, 0x7F7F, 0xFF7F), bits).astype(np.uint16)
        vals = bf16_bits_to_f32(bits)
    return vals.astype(np.float64), bits.astype("<u2").tobytes()


def mlir_elem(dtype: str) -> str:
    return {"f32": "f32", "bf16": "bf16"}[dtype]


# ---------------------------------------------------------------------------
# Input rows
# ---------------------------------------------------------------------------


def make_rows(rng: np.random.Generator, n: int, kinds: set[str] | None,
              skip: set[str]) -> list[tuple[str, np.ndarray]]:
    """Rows of length ``n`` as (kind, float64 values)."""
    rows: list[tuple[str, np.ndarray]] = []
    ninf = -np.inf

    def add(kind: str, row: Iterable[float] | np.ndarray) -> None:
        if (kinds is None or kind in kinds) and kind not in skip:
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
    add("tiny", rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-44, -36, n))
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
    add("extreme", rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(30, 38.47, n))
    return rows


# ---------------------------------------------------------------------------
# Reference
# ---------------------------------------------------------------------------


def reference(op: str, x: np.ndarray, masked: str) -> np.ndarray:
    """float64 reference along the last axis of a 2-D array."""
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
    y = np.array(y)
    y[is_masked] = fill
    return y


def row_errors(op: str, y: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row error in the documented metric, and per-row 'exact mismatch'
    flags (non-finite values that do not match the reference exactly)."""
    with np.errstate(all="ignore"):
        if op == "logsumexp":
            y2, r2 = y[:, None], ref[:, None]
        else:
            y2, r2 = y, ref
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
    in_shape: tuple[int, int]


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
    def __init__(self, op: str, form: str, dtype: str, reduce_dim: int,
                 dynamic: bool, init: str):
        self.op, self.form, self.dtype = op, form, dtype
        self.reduce_dim, self.dynamic, self.init = reduce_dim, dynamic, init
        self.elem = mlir_elem(dtype)

    def out_shape(self, in_shape: tuple[int, ...]) -> tuple[int, ...]:
        if self.op == "logsumexp":
            return tuple(d for i, d in enumerate(in_shape) if i != self.reduce_dim)
        return in_shape

    def _init_value(self, lines: list[str], ty: str, dyn_dims: list[str]) -> str:
        lines.append(f"  %e = tensor.empty({', '.join(dyn_dims)}) : {ty}")
        if self.init == "empty":
            return "%e"
        # Garbage destination: the op must overwrite it, never read it.
        lines.append(f"  %g = arith.constant 0x7FC00000 : f32")
        if self.elem != "f32":
            lines.append(f"  %gv = arith.truncf %g : f32 to {self.elem}")
        else:
            lines.append(f"  %gv = arith.addf %g, %g : f32")
        lines.append(f"  %i = linalg.fill ins(%gv : {self.elem}) outs(%e : {ty}) -> {ty}")
        return "%i"

    def kernel(self, k: Kernel, in_shape: tuple[int, int]) -> str:
        """One function computing the op on one input shape (or, dynamic,
        on every shape)."""
        ishape: tuple[int | None, ...] = (None, None) if self.dynamic else in_shape
        oshape: tuple[int | None, ...] = self.out_shape(ishape)  # type: ignore[arg-type]
        ity, oty = tensor_type(ishape, self.elem), tensor_type(oshape, self.elem)
        lines = [f"func.func @{k.name}(%x: {ity}) -> {oty} {{"]
        dyn_dims: list[str] = []
        if self.dynamic:
            for i, d in enumerate(ishape):
                if i == self.reduce_dim and self.op == "logsumexp":
                    continue
                lines.append(f"  %c{i} = arith.constant {i} : index")
                lines.append(f"  %d{i} = tensor.dim %x, %c{i} : {ity}")
                dyn_dims.append(f"%d{i}")
        init = self._init_value(lines, oty, dyn_dims)
        if self.form == "dialect":
            lines.append(
                f"  %y = softmax.{self.op} ins(%x : {ity}) outs({init} : {oty}) "
                f"dimension({self.reduce_dim}) masked({k.masked}) algorithm({k.algorithm})")
        else:
            assert self.op == "softmax"
            lines.append(
                f"  %y = linalg.softmax dimension({self.reduce_dim}) ins(%x : {ity}) "
                f"outs({init} : {oty}) -> {oty}")
        lines.append(f"  return %y : {oty}")
        lines.append("}")
        return "\n".join(lines)

    def to_bits(self, lines: list[str], v: str, shape: tuple[int, ...], idx: int) -> str:
        ty = tensor_type(shape, self.elem)
        ity = tensor_type(shape, "i32")
        rank = len(shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        amap = f"affine_map<({dims}) -> ({dims})>"
        its = ", ".join(['"parallel"'] * rank)
        lines.append(f"  %bi{idx} = tensor.empty() : {ity}")
        lines.append(
            f"  %b{idx} = linalg.generic {{indexing_maps = [{amap}, {amap}], "
            f"iterator_types = [{its}]}} ins({v} : {ty}) outs(%bi{idx} : {ity}) {{")
        lines.append(f"  ^bb0(%a: {self.elem}, %o: i32):")
        if self.elem == "f32":
            lines.append("    %c = arith.bitcast %a : f32 to i32")
        else:
            lines.append(f"    %f = arith.extf %a : {self.elem} to f32")
            lines.append("    %c = arith.bitcast %f : f32 to i32")
        lines.append("    linalg.yield %c : i32")
        lines.append(f"  }} -> {ity}")
        mty = f"memref<{'x'.join(str(d) for d in shape)}xi32>" if shape else "memref<i32>"
        lines.append(f"  %m{idx} = bufferization.to_buffer %b{idx} : {ity} to {mty}")
        lines.append(f"  %u{idx} = memref.cast %m{idx} : {mty} to memref<*xi32>")
        lines.append(f"  call @printMemrefI32(%u{idx}) : (memref<*xi32>) -> ()")
        return f"%u{idx}"

    def module(self, groups: list[Group], kernels: list[Kernel]) -> str:
        out = ["// Generated by softmax_check.py; inputs are bit-exact hex constants.",
               "module {",
               "func.func private @printMemrefI32(memref<*xi32>) "
               "attributes {llvm.emit_c_interface}"]
        seen_dyn: set[str] = set()
        for k in kernels:
            if self.dynamic:
                if k.name in seen_dyn:
                    continue
                seen_dyn.add(k.name)
            out.append(self.kernel(k, groups[k.group].in_shape))
        main = ["func.func @main() {"]
        for gi, g in enumerate(groups):
            ty = tensor_type(g.in_shape, self.elem)
            main.append(f'  %x{gi} = arith.constant dense<"0x{g.raw.hex().upper()}"> : {ty}')
        for ki, k in enumerate(kernels):
            g = groups[k.group]
            sty = tensor_type(g.in_shape, self.elem)
            oshape = self.out_shape(g.in_shape)
            soty = tensor_type(oshape, self.elem)
            if self.dynamic:
                dty = tensor_type((None, None), self.elem)
                doty = tensor_type(self.out_shape((None, None)), self.elem)  # type: ignore[arg-type]
                main.append(f"  %xd{ki} = tensor.cast %x{k.group} : {sty} to {dty}")
                main.append(f"  %yd{ki} = call @{k.name}(%xd{ki}) : ({dty}) -> {doty}")
                main.append(f"  %y{ki} = tensor.cast %yd{ki} : {doty} to {soty}")
            else:
                main.append(f"  %y{ki} = call @{k.name}(%x{k.group}) : ({sty}) -> {soty}")
            self.to_bits(main, f"%y{ki}", oshape, ki)
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


def parse_memrefs(text: str) -> list[np.ndarray]:
    """Parse the output of a sequence of printMemrefI32 calls."""
    heads = list(MEMREF_RE.finditer(text))
    result = []
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        sizes = [int(s) for s in h.group(2).replace(",", " ").split()]
        ints = [int(v) for v in INT_RE.findall(text[h.end():end])]
        count = int(np.prod(sizes)) if sizes else 1
        if len(ints) != count:
            raise RuntimeError(f"memref #{i}: expected {count} values, got {len(ints)}")
        result.append(np.array(ints, dtype=np.int64).astype(np.uint32)
                      .view(np.float32).astype(np.float64).reshape(sizes))
    return result


class ToolError(RuntimeError):
    pass


def run_cmd(cmd: list[str], stdin: bytes | None, what: str, timeout: float) -> bytes:
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ToolError(f"{what} timed out after {timeout}s: {shlex.join(cmd)}")
    if p.returncode != 0:
        raise ToolError(f"{what} failed (exit {p.returncode}): {shlex.join(cmd)}\n"
                        + p.stderr.decode(errors="replace")[-4000:])
    return p.stdout


@dataclasses.dataclass
class Tools:
    softmax_opt: str
    mlir_opt: str
    mlir_runner: str
    runner_libs: str
    backend: str
    timeout: float
    runner_args: list[str]

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
        cmd = [self.softmax_opt, path]
        if form == "linalg":
            cmd += ["--softmax-raise", f"--softmax-select-algorithm=force={algorithm}"]
        cmd.append("--softmax-to-cpu" + (f"=reduction-tile-size={tile}" if tile else ""))
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


def default_tool(env: str, *candidates: str) -> str:
    if os.environ.get(env):
        return os.environ[env]
    for c in candidates:
        if Path(c).exists():
            return c
    return candidates[-1]


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve()
    repo = here.parents[3]
    llvm = Path("/usr/lib/llvm-22")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", choices=OPS, required=True)
    ap.add_argument("--form", choices=("dialect", "linalg"), default="dialect")
    ap.add_argument("--algorithms", type=csv, default=list(ALGORITHMS),
                    help="comma-separated subset of three_pass,online,exp_pair")
    ap.add_argument("--dtype", choices=DTYPES, default="f32")
    ap.add_argument("--masked", type=csv, default=list(MASKED),
                    help="comma-separated subset of zero,nan (linalg form: nan)")
    ap.add_argument("--tile-sizes", type=lambda s: [int(v) for v in csv(s)], default=[0, 64],
                    help="reduction tile sizes, 0 = untiled (default 0,64)")
    ap.add_argument("--lengths", type=lambda s: [int(v) for v in csv(s)],
                    default=[1, 7, 64, 100, 131, 1031],
                    help="row lengths (default 1,7,64,100,131,1031)")
    ap.add_argument("--kinds", type=csv, default=None, help="only these row kinds")
    ap.add_argument("--skip-kinds", type=csv, default=[], help="leave out these row kinds")
    ap.add_argument("--reduce-dim", choices=("last", "first"), default="last",
                    help="reduce along dimension 1 (rows) or 0 (columns)")
    ap.add_argument("--dynamic", action="store_true",
                    help="kernels take tensor<?x?x..> (cast in main); one kernel serves all lengths")
    ap.add_argument("--init", choices=("empty", "nan"), default="empty",
                    help="destination: tensor.empty or filled with NaN (must be overwritten)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--tolerance", type=float, default=None,
                    help="override the error bound (f32 1e-6, bf16 1e-2)")
    ap.add_argument("--backend", choices=("softmax", "upstream"), default="softmax")
    ap.add_argument("--softmax-opt", default=default_tool(
        "SOFTMAX_OPT", str(repo / "build" / "bin" / "softmax-opt")))
    ap.add_argument("--mlir-opt", default=default_tool("MLIR_OPT", str(llvm / "bin" / "mlir-opt")))
    ap.add_argument("--mlir-runner", default=default_tool(
        "MLIR_RUNNER", str(llvm / "bin" / "mlir-runner")))
    ap.add_argument("--runner-libs", default=",".join(
        str(llvm / "lib" / n) for n in ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so")),
        help="shared libraries for mlir-runner (comma-separated, '-shared-libs=' prefix allowed)")
    ap.add_argument("--runner-arg", action="append", default=[],
                    help="extra mlir-runner argument (repeatable)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--keep", metavar="DIR", help="write modules and outputs to DIR")
    ap.add_argument("--emit", action="store_true", help="print the first module and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="per-length details")
    args = ap.parse_args(argv)

    for a in args.algorithms:
        if a not in ALGORITHMS:
            ap.error(f"unknown algorithm {a!r}")
    for m in args.masked:
        if m not in MASKED:
            ap.error(f"unknown masked mode {m!r}")
    if args.form == "linalg":
        if args.op != "softmax":
            ap.error("--form linalg exists for softmax only (linalg.softmax)")
        args.masked = ["nan"]  # linalg.softmax semantics; raised as masked(nan)
    if args.backend == "upstream":
        if args.form != "linalg":
            ap.error("--backend upstream needs --form linalg")
        args.algorithms = args.algorithms[:1]
        args.tile_sizes = [0]
    if 0 not in args.tile_sizes:
        args.tile_sizes = [0] + args.tile_sizes

    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = np.random.default_rng(seed)
    reduce_dim = 1 if args.reduce_dim == "last" else 0
    tag = (f"op={args.op} form={args.form} dtype={args.dtype}"
           f"{' dynamic' if args.dynamic else ''}"
           f"{' reduce-dim=0' if reduce_dim == 0 else ''}"
           f"{' init=nan' if args.init == 'nan' else ''}")
    print(f"softmax_check: {tag}")
    reproduce = [a for a in (argv if argv is not None else sys.argv[1:]) if not a.startswith("--seed")]
    print(f"seed = {seed}  (reproduce: {Path(sys.argv[0]).name} {shlex.join(reproduce)} --seed {seed})")

    # Inputs.
    groups: list[Group] = []
    kinds = set(args.kinds) if args.kinds else None
    for n in args.lengths:
        rows = make_rows(rng, n, kinds, set(args.skip_kinds))
        if not rows:
            continue
        x64 = np.stack([r for _, r in rows])
        vals, _ = quantize(x64, args.dtype)
        layout = vals if reduce_dim == 1 else vals.T
        _, raw = quantize(np.ascontiguousarray(layout), args.dtype)
        groups.append(Group(n, [k for k, _ in rows], vals, raw, tuple(layout.shape)))  # type: ignore[arg-type]

    builder = ModuleBuilder(args.op, args.form, args.dtype, reduce_dim, args.dynamic, args.init)
    tools = Tools(args.softmax_opt, args.mlir_opt, args.mlir_runner, args.runner_libs,
                  args.backend, args.timeout, args.runner_arg)

    # Pipeline configurations: one module each.
    # dialect form: the algorithm is in the op, so one module per tile size.
    # linalg form: the algorithm is a pipeline option, one module per (alg, tile).
    configs: list[tuple[str | None, int]] = []
    for t in args.tile_sizes:
        if args.form == "linalg":
            configs += [(a, t) for a in args.algorithms]
        else:
            configs.append((None, t))

    def kernels_for(alg: str | None) -> list[Kernel]:
        ks = []
        algs = [alg] if alg else args.algorithms
        for a in algs:
            for m in args.masked:
                for gi in range(len(groups)):
                    name = f"k_{a}_{m}" if args.dynamic else f"k_{a}_{m}_{gi}"
                    if args.form == "linalg":
                        name = "k_linalg" + ("" if args.dynamic else f"_{gi}")
                    ks.append(Kernel(name, gi, a, m))
        return ks

    keep = Path(args.keep) if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.TemporaryDirectory(prefix="softmax_check_")
    workdir = keep or Path(tmp.name)

    failures: list[str] = []
    # results[(alg, masked, group, tile)] = output array
    results: dict[tuple[str, str, int, int], np.ndarray] = {}
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
                raised = run_cmd([tools.softmax_opt, str(path), "--softmax-raise",
                                  f"--softmax-select-algorithm=force={alg}"],
                                 None, "softmax-opt (raise)", args.timeout).decode()
                n_ops = raised.count(f"algorithm({alg})")
                if "linalg.softmax" in raised or n_ops < len(groups if not args.dynamic else [0]):
                    failures.append(f"raise: linalg.softmax not raised to algorithm({alg}) "
                                    f"({n_ops} raised ops)")
                    print(f"FAIL raise algorithm={alg}: linalg.softmax left or not forced")
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
            outs = parse_memrefs(out)
            if len(outs) != len(kernels):
                raise RuntimeError(f"expected {len(kernels)} printed memrefs, got {len(outs)}")
        except RuntimeError as e:
            print(f"FAIL {label}: cannot parse runner output: {e}")
            failures.append(f"{label}: bad output")
            continue
        print(f"  ran {label}: {len(kernels)} kernels, {time.monotonic() - t0:.2f}s")
        for k, y in zip(kernels, outs):
            if reduce_dim == 0 and args.op != "logsumexp":
                y = y.T
            results[(k.algorithm, k.masked, k.group, tile)] = y

    # Check against the reference.
    for alg in args.algorithms:
        for m in args.masked:
            for tile in args.tile_sizes:
                worst, worst_where, worst_bound = 0.0, "", 0.0
                ok = True
                missing = False
                for gi, g in enumerate(groups):
                    y = results.get((alg, m, gi, tile))
                    if y is None:
                        missing = True
                        continue
                    ref = reference(args.op, g.values, m)
                    bound = bound_for(args.dtype, g.length, args.tolerance)
                    err, mism = row_errors(args.op, y, ref)
                    # Non-finite outputs where the reference is finite.
                    bad = mism | ~(err <= bound)
                    for r in np.nonzero(bad)[0]:
                        ok = False
                        kind = g.kinds[r]
                        yr, rr = y[r], ref[r]
                        if args.op != "logsumexp":
                            with np.errstate(all="ignore"):
                                d = np.where(np.isfinite(rr) & np.isfinite(yr),
                                             np.abs(yr - rr), np.inf)
                                d = np.where((yr == rr) | (np.isnan(yr) & np.isnan(rr)), 0, d)
                            j = int(np.argmax(d))
                            detail = (f"element {j}: x={g.values[r, j]!r} got {yr[j]!r} "
                                      f"expected {rr[j]!r}")
                        else:
                            detail = f"got {yr!r} expected {rr!r}"
                        msg = (f"{args.op} {args.dtype} algorithm={alg} masked={m} tile={tile} "
                               f"len={g.length} row={r} kind={kind}: err={err[r]:.3e} "
                               f"(bound {bound:g}){' non-finite mismatch' if mism[r] else ''}; "
                               f"{detail}")
                        print(f"  MISMATCH {msg}")
                        failures.append(msg)
                    fin = np.isfinite(err) & ~mism
                    if fin.any():
                        r = int(np.argmax(np.where(fin, err, -1)))
                        if err[r] >= worst:
                            worst, worst_where = float(err[r]), f"len={g.length} kind={g.kinds[r]}"
                            worst_bound = bound
                    if args.verbose:
                        print(f"    {alg} masked={m} tile={tile} len={g.length}: "
                              f"max err {np.nanmax(err):.3e}")
                status = "PASS" if ok and not missing else "FAIL"
                extra = " (no result)" if missing else ""
                print(f"{status} {args.op} {args.dtype} algorithm={alg} masked={m} tile={tile}: "
                      f"max err {worst:.3e} at {worst_where} (bound {worst_bound:.2e}){extra}")
                if missing:
                    failures.append(f"{alg} {m} tile={tile}: no result")

    # Tiled vs untiled.
    for alg in args.algorithms:
        for m in args.masked:
            for tile in args.tile_sizes:
                if tile == 0:
                    continue
                worst, identical, ok, have = 0.0, True, True, True
                for gi, g in enumerate(groups):
                    y0 = results.get((alg, m, gi, 0))
                    yt = results.get((alg, m, gi, tile))
                    if y0 is None or yt is None:
                        have = False
                        continue
                    bound = bound_for(args.dtype, g.length, args.tolerance)
                    same = (y0 == yt) | (np.isnan(y0) & np.isnan(yt))
                    identical &= bool(np.all(same))
                    err, mism = row_errors(args.op, yt, y0)
                    if np.any(mism) or not np.all(err <= bound):
                        ok = False
                        for r in np.nonzero(mism | ~(err <= bound))[0]:
                            msg = (f"tiled vs untiled {args.op} {args.dtype} algorithm={alg} "
                                   f"masked={m} tile={tile} len={g.length} row={r} "
                                   f"kind={g.kinds[r]}: diff={err[r]:.3e}")
                            print(f"  MISMATCH {msg}")
                            failures.append(msg)
                    fin = err[np.isfinite(err)]
                    if fin.size:
                        worst = max(worst, float(fin.max()))
                if not have:
                    continue
                print(f"{'PASS' if ok else 'FAIL'} tiled-vs-untiled {args.op} {args.dtype} "
                      f"algorithm={alg} masked={m} tile={tile}: max diff {worst:.3e}"
                      f"{' (bit-identical)' if identical else ''}")

    elapsed = time.monotonic() - t_start
    if failures:
        print(f"FAIL: {len(failures)} failures ({tag}, seed {seed}, {elapsed:.1f}s)")
        return 1
    print(f"PASS: all checks ({tag}, seed {seed}, {elapsed:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
