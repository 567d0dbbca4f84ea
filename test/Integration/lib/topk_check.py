#!/usr/bin/env python3
"""Execution check of softmax.topk on the CPU.

Each case holds fixed-seed rows as dense constants in @main, runs the op
through ``softmax-opt --softmax-to-cpu`` (options from ``--pipeline-options``:
the one-read kernel by default, the reference decomposition with
``vector-width=0``) and mlir-runner, and checks the
indices exactly and the probabilities (and log-probabilities) within 2e-6
relative of float64 against NumPy: the k largest of each row in the order
(value descending, index ascending), their softmax probabilities over the
whole row. Hostile rows: ties (rounded values, a constant row), -inf
entries, a row of all -inf (probability 0), NaNs (never chosen; the row's
probabilities NaN, as softmax gives), k > V (index -1, probability 0),
odd lengths, bf16, rows in ascending and descending order, rows of a
slice with a row stride.

Prints one PASS/FAIL line per case and ``PASS: all checks`` at the end.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from attention_check import BF16, hex_dense, print_bits, rounded, ttype  # noqa: E402
from cross_entropy_check import drive  # noqa: E402


@dataclasses.dataclass
class Case:
    name: str
    b: int
    v: int
    k: int
    dtype: str = "f32"
    index_type: str = "i32"
    log_probs: bool = False
    kind: str = "random"   # random, ties, hostile, ascending, descending
    # The rows are every other row of a larger constant, from its second
    # column (tensor.extract_slice with a row stride).
    slice: bool = False


def cases() -> list[Case]:
    return [
        Case("f32-random-k5", 3, 1031, 5, log_probs=True),
        Case("bf16-random-k50", 2, 1000, 50, dtype=BF16, index_type="i64"),
        # Values rounded to halves: many ties, broken by the lower index.
        Case("f32-ties", 4, 97, 20, kind="ties", log_probs=True),
        # -inf entries, a row of all -inf, NaNs, a constant row.
        Case("f32-hostile", 4, 37, 8, kind="hostile", log_probs=True),
        # More wanted than the row has.
        Case("f32-k-above-v", 2, 5, 7, log_probs=True),
        Case("f32-one-element", 2, 1, 1),
        # Rows in ascending order: every element beats the k-th kept, so
        # each is inserted and the worst dropped (the CPU kernel's worst
        # case); descending: nothing after the first k enters.
        Case("f32-ascending", 2, 3001, 40, kind="ascending", log_probs=True),
        Case("bf16-descending", 2, 2050, 33, dtype=BF16, kind="descending"),
        # Long rows of few distinct values: ties across vectors and across
        # the main loop's blocks and tail.
        Case("f32-ties-long", 3, 5003, 100, kind="ties", log_probs=True),
        Case("f32-slice", 3, 517, 9, log_probs=True, slice=True),
    ]


def build(c: Case, rng: np.random.Generator, path: str):
    x = rng.standard_normal((c.b, c.v)) * 3.0
    if c.kind == "ties":
        x = np.round(x * 2) / 2
    if c.kind == "ascending":
        x = np.sort(x, axis=1)
    if c.kind == "descending":
        x = -np.sort(-x, axis=1)
    if c.kind == "hostile":
        x[0, rng.integers(0, c.v, size=10)] = -np.inf
        x[1, :] = -np.inf
        x[2, rng.integers(0, c.v, size=5)] = np.nan
        x[3, :] = 1.25
    x = rounded(x, c.dtype)
    e = "bf16" if c.dtype == BF16 else "f32"
    xt, pt = ttype((c.b, c.v), e), ttype((c.b, c.k), "f32")
    it = ttype((c.b, c.k), c.index_type)
    if c.slice:
        full = rounded(rng.standard_normal((2 * c.b, c.v + 3)) * 3.0, c.dtype)
        full[::2, 1:c.v + 1] = x
        ft = ttype(full.shape, e)
        lines = [f"%xf = arith.constant dense<{hex_dense(full, c.dtype)}> : {ft}",
                 f"%x = tensor.extract_slice %xf[0, 1] [{c.b}, {c.v}] [2, 1] : {ft} to {xt}"]
    else:
        lines = [f"%x = arith.constant dense<{hex_dense(x, c.dtype)}> : {xt}"]
    lines += [f"%p0 = tensor.empty() : {pt}", f"%i0 = tensor.empty() : {it}"]
    if c.log_probs:
        lines.append(f"%l0 = tensor.empty() : {pt}")
    res = "%p, %i" + (", %l" if c.log_probs else "")
    lines.append(f"{res} = softmax.topk ins(%x : {xt}) outs(%p0, %i0 : {pt}, {it})"
                 + (f" log_probs(%l0 : {pt})" if c.log_probs else "") + f" k({c.k})")
    lines.append(print_bits("%p", (c.b, c.k), "f32", "p"))
    if c.log_probs:
        lines.append(print_bits("%l", (c.b, c.k), "f32", "l"))
    mt = it.replace("tensor", "memref")
    fn = "printMemrefI32" if c.index_type == "i32" else "printMemrefI64"
    lines.append(f"%im = bufferization.to_buffer %i : {it} to {mt}\n"
                 f"  %iu = memref.cast %im : {mt} to memref<*x{c.index_type}>\n"
                 f"  call @{fn}(%iu) : (memref<*x{c.index_type}>) -> ()")
    text = ("func.func private @printMemrefI32(memref<*xi32>)\n"
            "func.func private @printMemrefI64(memref<*xi64>)\n"
            "func.func @main() {\n  " + "\n  ".join(lines) + "\n  return\n}\n")
    with open(path, "w") as f:
        f.write(text)
    return x


def reference(c: Case, x):
    xd = x.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        fin = np.where(np.isnan(xd), -np.inf, xd)
        mx = fin.max(axis=1, keepdims=True)
        safe = np.where(np.isfinite(mx), mx, 0.0)
        lse = (safe + np.log(np.exp(fin - safe).sum(axis=1, keepdims=True)))[:, 0]
    idx = np.full((c.b, c.k), -1, dtype=np.int64)
    lp = np.full((c.b, c.k), -np.inf)
    for r in range(c.b):
        order = sorted((i for i in range(c.v) if not np.isnan(xd[r, i])),
                       key=lambda i: (-xd[r, i], i))[:c.k]
        idx[r, :len(order)] = order
        if np.isnan(xd[r]).any():
            # The row's lse is NaN: so are its probabilities (as softmax
            # gives), though NaN is never chosen.
            lp[r, :len(order)] = np.nan
        elif np.isfinite(lse[r]):
            lp[r, :len(order)] = xd[r, order] - lse[r]
    return idx, np.exp(lp), lp


def check(c: Case, x, out: str):
    blocks = re.split(r"Unranked Memref", out)[1:]
    vals = [np.array([int(v) for v in re.findall(r"-?\d+", blk.split("data =", 1)[1])],
                     dtype=np.int64) for blk in blocks]
    p = vals[0].astype(np.int32).view(np.float32).reshape(c.b, c.k)
    lp = (vals[1].astype(np.int32).view(np.float32).reshape(c.b, c.k)
          if c.log_probs else None)
    idx = vals[-1].reshape(c.b, c.k)
    ref_i, ref_p, ref_lp = reference(c, x)
    ok = np.array_equal(idx, ref_i)
    ok &= np.array_equal(np.isnan(p), np.isnan(ref_p))
    num = ~np.isnan(ref_p)
    ok &= bool(np.all(np.abs(p[num] - ref_p[num])
                      <= 2e-6 * np.maximum(ref_p[num], 1e-30) + 1e-30))
    if lp is not None:
        same_inf = (np.array_equal(np.isneginf(lp), np.isneginf(ref_lp))
                    and np.array_equal(np.isnan(lp), np.isnan(ref_lp)))
        fin = np.isfinite(ref_lp)
        ok &= same_inf and bool(np.all(np.abs(lp[fin] - ref_lp[fin])
                                       <= 2e-6 * np.maximum(1.0, np.abs(ref_lp[fin]))))
    return bool(ok), f"indices {idx[0][:6].tolist()} p {np.round(p[0][:3], 6).tolist()}"


def main() -> int:
    return drive(cases(), build, check)


if __name__ == "__main__":
    sys.exit(main())
