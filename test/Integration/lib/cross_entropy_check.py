#!/usr/bin/env python3
"""Execution check of softmax.linear_cross_entropy on the CPU.

Each case builds a module whose @main holds fixed-seed inputs (hidden
[N, D], classifier [V, D], targets [N], optional bias) as dense constants,
runs the op through ``softmax-opt --softmax-to-cpu`` (the decomposition:
vocabulary tiles folded into the online state) and mlir-runner, reads the
loss (and lse) back bit-exactly and checks them against float64 NumPy on
the same (rounded) inputs: ``F.cross_entropy(h @ W.T + b, t)`` with the
op's softcap, z-loss, ignore_index and reduction. Vocabulary sizes are odd
(primes, not multiples of vocab_tile, 1); a target out of range must give
NaN, a mean over no kept token NaN, ignored tokens 0.

Prints one PASS/FAIL line per case and ``PASS: all checks`` at the end;
exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from attention_check import (BF16, hex_dense, lower_and_run, parse_i32,  # noqa: E402
                             print_bits, rounded, ttype)
from softmax_check import resolve_seed  # noqa: E402


@dataclasses.dataclass
class Case:
    name: str
    n: int
    d: int
    v: int
    reduction: str = "mean"
    dtype: str = "f32"
    target_type: str = "i64"
    bias: bool = False
    softcap: float | None = None
    z_loss: float | None = None
    vocab_tile: int | None = None
    ignore_index: int = -100
    ignored: int = 1            # tokens whose target is ignore_index
    out_of_range: bool = False  # one target at V: its loss is NaN
    scale: float = 1.0          # hidden-state scale (peaked logits)
    lse: bool = False
    # Hidden states near their target's classifier row (a trained model's
    # peaked, mostly right logits) instead of random ones.
    aligned: bool = False


def cases() -> list[Case]:
    return [
        # Two vocabulary tiles of 1024, the last of 7 classes.
        Case("f32-mean-prime-vocab", 7, 32, 1031),
        # bf16 with bias, softcap, z-loss, an lse result, sum; tiles of 64
        # over 300 classes (the last of 44).
        Case("bf16-bias-softcap-zloss-sum", 5, 64, 300, reduction="sum", dtype=BF16,
             bias=True, softcap=30.0, z_loss=1e-4, vocab_tile=64, lse=True),
        # Per-token losses, i32 targets, an ignore_index that is a class
        # id, a target out of range.
        Case("none-i32-out-of-range", 6, 16, 97, reduction="none", target_type="i32",
             ignore_index=7, out_of_range=True, lse=True),
        # One class: every kept token's loss is 0.
        Case("one-class", 4, 8, 1, reduction="none", ignored=0),
        # Every token ignored: the mean is 0 / 0.
        Case("all-ignored-mean", 3, 8, 50, ignored=3),
        # Peaked logits (hidden scaled by 300: logits near 1e3), softcap
        # off, 17 classes a tile.
        Case("peaked-logits", 9, 32, 211, scale=300.0, vocab_tile=17, lse=True),
        # Softcap on peaked logits: tanh saturates.
        Case("peaked-softcap-bias", 4, 32, 129, scale=300.0, softcap=15.0, bias=True,
             dtype=BF16, reduction="none"),
        # Mostly right predictions: small losses, the target's logit the
        # row's max (the sum is dominated by one term).
        Case("aligned-bf16", 8, 64, 1000, dtype=BF16, aligned=True, scale=0.8,
             reduction="none", lse=True),
    ]


def build(c: Case, rng: np.random.Generator, path: str):
    e = "bf16" if c.dtype == BF16 else "f32"
    h = rounded(rng.standard_normal((c.n, c.d)) * c.scale / np.sqrt(c.d), c.dtype)
    w = rounded(rng.standard_normal((c.v, c.d)), c.dtype)
    b = rounded(rng.standard_normal(c.v), c.dtype) if c.bias else None
    t = rng.integers(0, c.v, size=c.n).astype(np.int64)
    if c.aligned:
        rows = w[t].astype(np.float64)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        noise = 0.3 * rng.standard_normal((c.n, c.d)) / np.sqrt(c.d)
        h = rounded((rows + noise) * c.scale, c.dtype)
    t[:c.ignored] = c.ignore_index
    if c.out_of_range:
        t[-1] = c.v
    tt = c.target_type
    tdense = (np.asarray(t, dtype="<i8" if tt == "i64" else "<i4").tobytes())
    lt = ttype((c.n,), "f32") if c.reduction == "none" else "tensor<f32>"
    args = [f"%h = arith.constant dense<{hex_dense(h, c.dtype)}> : {ttype((c.n, c.d), e)}",
            f"%w = arith.constant dense<{hex_dense(w, c.dtype)}> : {ttype((c.v, c.d), e)}",
            f'%t = arith.constant dense<"0x{tdense.hex().upper()}"> : {ttype((c.n,), tt)}']
    if b is not None:
        args.append(f"%b = arith.constant dense<{hex_dense(b, c.dtype)}> : {ttype((c.v,), e)}")
    shape = "" if c.reduction != "none" else f"{c.n}"
    args.append(f"%l0 = tensor.empty({''}) : {lt}")
    if c.lse:
        args.append(f"%s0 = tensor.empty() : {ttype((c.n,), 'f32')}")
    opts = [f"reduction({c.reduction})"]
    if c.ignore_index != -100:
        opts.append(f"ignore_index({c.ignore_index})")
    if c.softcap is not None:
        opts.append(f"softcap({c.softcap!r})")
    if c.z_loss is not None:
        opts.append(f"z_loss({c.z_loss!r})")
    if c.vocab_tile is not None:
        opts.append(f"vocab_tile({c.vocab_tile})")
    results = "%loss, %lse" if c.lse else "%loss"
    op = (f"{results} = softmax.linear_cross_entropy ins(%h, %w, %t : "
          f"{ttype((c.n, c.d), e)}, {ttype((c.v, c.d), e)}, {ttype((c.n,), tt)})"
          + (f" bias(%b : {ttype((c.v,), e)})" if b is not None else "")
          + f" outs(%l0 : {lt})"
          + (f" lse(%s0 : {ttype((c.n,), 'f32')})" if c.lse else "")
          + " " + " ".join(opts))
    body = "\n  ".join(args + [op])
    if c.reduction == "none":
        prints = [print_bits("%loss", (c.n,), "f32", "loss")]
    else:
        prints = ["%loss1 = tensor.expand_shape %loss [] output_shape [1] : "
                  "tensor<f32> into tensor<1xf32>",
                  print_bits("%loss1", (1,), "f32", "loss")]
    if c.lse:
        prints.append(print_bits("%lse", (c.n,), "f32", "lse"))
    text = ("func.func private @printMemrefI32(memref<*xi32>)\n"
            "func.func @main() {\n  " + body + "\n  " + "\n  ".join(prints)
            + "\n  return\n}\n")
    del shape
    with open(path, "w") as f:
        f.write(text)
    return h, w, b, t


def reference(c: Case, h, w, b, t):
    z = h.astype(np.float64) @ w.astype(np.float64).T
    if b is not None:
        z = z + b.astype(np.float64)
    if c.softcap is not None:
        z = c.softcap * np.tanh(z / c.softcap)
    mx = z.max(axis=1, keepdims=True)
    lse = (mx + np.log(np.exp(z - mx).sum(axis=1, keepdims=True)))[:, 0]
    kept = t != c.ignore_index
    inr = (t >= 0) & (t < c.v)
    zt = z[np.arange(c.n), np.clip(t, 0, c.v - 1)]
    loss = lse - zt + (c.z_loss or 0.0) * lse * lse
    loss = np.where(inr, loss, np.nan)
    loss = np.where(kept, loss, 0.0)
    if c.reduction == "sum":
        loss = np.array([loss.sum()])
    elif c.reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            loss = np.array([loss.sum() / kept.sum()])
    return loss, lse


def close(got, ref, scale) -> bool:
    nan_ok = np.array_equal(np.isnan(got), np.isnan(ref))
    fin = ~np.isnan(ref)
    return nan_ok and bool(np.all(np.abs(got[fin] - ref[fin]) <= 2e-5 * scale))


def check(c: Case, inputs, out: str) -> tuple[bool, str]:
    h, w, b, t = inputs
    got = parse_i32(out)
    ref_loss, ref_lse = reference(c, h, w, b, t)
    scale = max(1.0, float(np.nanmax(np.abs(ref_lse))))
    if c.reduction != "none":
        # A sum over N tokens rounds N times.
        scale *= c.n
    ok = close(got[0].astype(np.float64), ref_loss, scale)
    if c.lse:
        ok &= close(got[1].astype(np.float64), ref_lse, scale)
    worst = float(np.nanmax(np.abs(got[0] - ref_loss))) if np.any(
        ~np.isnan(ref_loss)) else 0.0
    return ok, (f"loss {got[0][:4].tolist()} ref {ref_loss[:4].tolist()} "
                f"max abs err {worst:.2e}")


def drive(all_cases, build_case, check_case) -> int:
    """The command line and the loop of the cross-entropy checks: per case,
    build_case(case, rng, path) writes the module and returns its inputs,
    softmax-to-cpu and mlir-runner run it, check_case(case, inputs, stdout)
    says (ok, what to print)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--softmax-opt", required=True)
    ap.add_argument("--mlir-runner", required=True)
    ap.add_argument("--runner-libs", required=True)
    ap.add_argument("--seed", default=None)
    ap.add_argument("--pipeline-options", default="",
                    help="softmax-to-cpu's options, e.g. vector-width=0")
    args = ap.parse_args()
    seed = resolve_seed(args.seed)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in all_cases:
            path = os.path.join(tmp, c.name + ".mlir")
            inputs = build_case(c, rng, path)
            out, err = lower_and_run(args.softmax_opt, args.mlir_runner, args.runner_libs,
                                     path, args.pipeline_options)
            if err:
                print(f"FAIL {c.name}: {err}")
                failed += 1
                continue
            ok, line = check_case(c, inputs, out)
            print(f"{'PASS' if ok else 'FAIL'} {c.name}: {line}")
            failed += not ok
    if failed:
        print(f"FAIL: {failed} cases")
        return 1
    print("PASS: all checks")
    return 0


def main() -> int:
    return drive(cases(), build, check)


if __name__ == "__main__":
    sys.exit(main())
