#!/usr/bin/env python3
"""Execution check of softmax.linear_cross_entropy_grad on the CPU.

Each case holds fixed-seed inputs as dense constants in @main, runs the op
through ``softmax-opt --softmax-to-cpu`` and mlir-runner, and checks the
gradients of hidden, classifier and bias against float64: the analytic
gradient of ``F.cross_entropy(h @ W.T + b, t)`` with the op's softcap,
z-loss, ignore_index and reduction, itself checked against central finite
differences of the float64 loss on a few coordinates (so the reference's
formula is tested too). The lse input is the float64 one rounded to f32.

Exact mode (filter 0) must filter no tile and match within 1e-5 (f32,
norm-relative; 4e-3 for bf16 outputs); with the bf16 default filter
(2^-12) the case must filter some tiles and every element must stay
within the bound the op states (the filter times the |w_n W| or |w_n h|
products of its skipped tiles, plus the output's rounding). On these small,
well-predicted cases the filtered mass is a few percent of the gradient's
norm (reported): filtering is meant for large vocabularies.
The filter counts must equal the float64 count of tiles whose |du| are
all at most the filter times their token's weight (allowing 1% for ties
at the threshold).

A class_max case runs the forward op first, for its lse and class_max
(each token's largest logit per 256 classes, checked against float64),
then the gradient twice, with and without class_max: both must give the
same bits, the same counts, and some tiles filtered before their logits
were recomputed (the third count; never in exact mode).

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
    n: int
    d: int
    v: int
    reduction: str = "mean"
    dtype: str = "f32"
    bias: bool = False
    softcap: float | None = None
    z_loss: float | None = None
    filter: float | None = None    # None: the op's default for the dtype
    vocab_tile: int = 64
    token_tile: int = 4
    ignored: int = 1
    aligned: bool = False
    scale: float = 1.5          # of the aligned hidden states
    expect_filtered: bool = False
    class_max: bool = False     # the forward's class_max into the gradient


def cases() -> list[Case]:
    return [
        # Exact mode, f32: every tile's two contractions run.
        Case("f32-exact-mean", 7, 16, 131, filter=0.0),
        # Exact, with bias, softcap and z-loss, sum, per-token tiles of 3
        # (the last of 1) and class tiles of 50 over 131 (the last of 31).
        Case("f32-exact-bias-softcap-zloss-sum", 7, 16, 131, reduction="sum", bias=True,
             softcap=5.0, z_loss=1e-3, filter=0.0, vocab_tile=50, token_tile=3),
        # Per-token loss gradients.
        Case("f32-exact-none", 5, 8, 40, reduction="none", filter=0.0, ignored=2),
        # bf16 with the default filter on mostly right predictions over
        # 1000 classes: most tiles hold only tiny gradients and are skipped.
        Case("bf16-default-filter-aligned", 8, 32, 1000, dtype=BF16, aligned=True, scale=3.0,
             expect_filtered=True),
        # bf16 exact mode on the same shape: nothing filtered.
        Case("bf16-exact-aligned", 8, 32, 1000, dtype=BF16, aligned=True, filter=0.0),
        # class_max from the forward: tiles of one group (256 classes; the
        # last of 232), so a target's tile is its group.
        Case("bf16-default-filter-class-max", 16, 32, 1000, dtype=BF16, aligned=True,
             scale=5.0, vocab_tile=256, expect_filtered=True, class_max=True),
        # The same with bias, softcap and z-loss (the bound's
        # |1 + 2 c lse|), f32 with a filter, tiles of 100 classes across
        # groups (each bounded by the largest group it meets; a group with
        # a target bounds none of its tiles, so two tokens a block).
        Case("f32-filter-class-max-bias-softcap-zloss", 16, 32, 1500, bias=True,
             softcap=30.0, z_loss=1e-3, filter=2.0 ** -12, aligned=True, scale=5.0,
             vocab_tile=100, token_tile=2, expect_filtered=True, class_max=True),
        # Exact mode filters nothing, class_max or not.
        Case("f32-exact-class-max", 7, 16, 300, filter=0.0, class_max=True),
    ]


def forward64(c: Case, h, w, b, t):
    u = h.astype(np.float64) @ w.astype(np.float64).T
    if b is not None:
        u = u + b.astype(np.float64)
    z = c.softcap * np.tanh(u / c.softcap) if c.softcap else u
    mx = z.max(axis=1, keepdims=True)
    lse = (mx + np.log(np.exp(z - mx).sum(axis=1, keepdims=True)))[:, 0]
    return z, lse


def loss64(c: Case, h, w, b, t, dl):
    z, lse = forward64(c, h, w, b, t)
    kept = t != -100
    zt = z[np.arange(c.n), np.clip(t, 0, c.v - 1)]
    per = np.where(kept, lse - zt + (c.z_loss or 0.0) * lse * lse, 0.0)
    if c.reduction == "none":
        return float((per * dl).sum())
    total = per.sum()
    return float(dl * (total / kept.sum() if c.reduction == "mean" else total))


def grads64(c: Case, h, w, b, t, dl):
    z, lse = forward64(c, h, w, b, t)
    kept = t != -100
    if c.reduction == "none":
        wn = dl.astype(np.float64)
    elif c.reduction == "mean":
        wn = np.full(c.n, float(dl) / kept.sum())
    else:
        wn = np.full(c.n, float(dl))
    wn = np.where(kept, wn, 0.0)
    p = np.exp(z - lse[:, None]) * (1 + 2 * (c.z_loss or 0.0) * lse[:, None])
    onehot = np.zeros_like(z)
    onehot[np.arange(c.n)[kept], t[kept]] = 1.0
    du = (p - onehot) * wn[:, None]
    if c.softcap:
        du = du * (1 - (z / c.softcap) ** 2)
    gh = du @ w.astype(np.float64)
    gw = du.T @ h.astype(np.float64)
    gb = du.sum(axis=0)
    return du, gh, gw, gb, wn


def finite_difference_ok(c: Case, h, w, b, t, dl, gh, gw, rng) -> bool:
    """The analytic reference against central differences of the float64
    loss, on 3 entries of each gradient."""
    eps = 1e-6
    hd, wd = h.astype(np.float64), w.astype(np.float64)
    for grad, base in ((gh, hd), (gw, wd)):
        for _ in range(3):
            i = tuple(rng.integers(0, s) for s in base.shape)
            plus, minus = base.copy(), base.copy()
            plus[i] += eps
            minus[i] -= eps
            args_p = (plus, wd) if base is hd else (hd, plus)
            args_m = (minus, wd) if base is hd else (hd, minus)
            num = (loss64(c, *args_p, b, t, dl) - loss64(c, *args_m, b, t, dl)) / (2 * eps)
            if abs(num - grad[i]) > 1e-6 * max(1.0, abs(num)):
                return False
    return True


def build(c: Case, rng: np.random.Generator, path: str):
    e = "bf16" if c.dtype == BF16 else "f32"
    w = rounded(rng.standard_normal((c.v, c.d)), c.dtype)
    t = rng.integers(0, c.v, size=c.n).astype(np.int64)
    if c.aligned:
        rows = w[t].astype(np.float64)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        h = rounded((rows + 0.3 * rng.standard_normal((c.n, c.d)) / np.sqrt(c.d))
                    * c.scale, c.dtype)
    else:
        h = rounded(rng.standard_normal((c.n, c.d)) / np.sqrt(c.d), c.dtype)
    b = rounded(rng.standard_normal(c.v), c.dtype) if c.bias else None
    t[:c.ignored] = -100
    dl = (rng.standard_normal(c.n).astype(np.float32) if c.reduction == "none"
          else np.float32(1.5))
    _, lse = forward64(c, h, w, b, t)
    lse32 = lse.astype(np.float32)
    ht, wt = ttype((c.n, c.d), e), ttype((c.v, c.d), e)
    nt = ttype((c.n,), "f32")
    groups = -(-c.v // 256)
    cmt = ttype((c.n, groups), "f32")
    counts = 3 if c.class_max else 2
    dlt = nt if c.reduction == "none" else "tensor<f32>"
    dldense = (hex_dense(dl, "f32") if c.reduction == "none"
               else f"{float(dl)!r}")
    lines = [f"%h = arith.constant dense<{hex_dense(h, c.dtype)}> : {ht}",
             f"%cls = arith.constant dense<{hex_dense(w, c.dtype)}> : {wt}",
             f'%t = arith.constant dense<"0x{t.astype("<i8").tobytes().hex().upper()}"> : '
             f"{ttype((c.n,), 'i64')}",
             f"%dl = arith.constant dense<{dldense}> : {dlt}",
             f"%gh0 = tensor.empty() : {ht}", f"%gw0 = tensor.empty() : {wt}",
             f"%n0 = tensor.empty() : tensor<{counts}xi64>"]
    if b is not None:
        lines.append(f"%b = arith.constant dense<{hex_dense(b, c.dtype)}> : {ttype((c.v,), e)}")
        lines.append(f"%gb0 = tensor.empty() : {ttype((c.v,), 'f32')}")
    shared = []
    if c.softcap is not None:
        shared.append(f"softcap({c.softcap!r})")
    if c.z_loss is not None:
        shared.append(f"z_loss({c.z_loss!r})")
    bias_in = f" bias(%b : {ttype((c.v,), e)})" if b is not None else ""
    if c.class_max:
        # lse and class_max from the forward op.
        lt = nt if c.reduction == "none" else "tensor<f32>"
        lines += [f"%l0 = tensor.empty() : {lt}", f"%s0 = tensor.empty() : {nt}",
                  f"%cm0 = tensor.empty() : {cmt}",
                  f"%loss, %lse, %cm = softmax.linear_cross_entropy ins(%h, %cls, %t : "
                  f"{ht}, {wt}, {ttype((c.n,), 'i64')}){bias_in} outs(%l0 : {lt}) "
                  f"lse(%s0 : {nt}) class_max(%cm0 : {cmt}) reduction({c.reduction}) "
                  + " ".join(shared)]
    else:
        lines.append(f"%lse = arith.constant dense<{hex_dense(lse32, 'f32')}> : {nt}")
    opts = [f"reduction({c.reduction})"] + shared
    if c.filter is not None:
        opts.append(f"filter({c.filter!r})")
    opts += [f"vocab_tile({c.vocab_tile})", f"token_tile({c.token_tile})"]

    def grad(suffix: str, with_max: bool, ncounts: int) -> None:
        res = ", ".join(f"%{x}{suffix}" for x in ["gh", "gw"] + (["gb"] if b is not None else [])
                        + ["n"])
        lines.append(
            f"{res} = softmax.linear_cross_entropy_grad ins(%h, %cls, %t, %lse, %dl : {ht}, "
            f"{wt}, {ttype((c.n,), 'i64')}, {nt}, {dlt}){bias_in}"
            + (f" class_max(%cm : {cmt})" if with_max else "")
            + f" outs(%gh0, %gw0 : {ht}, {wt})"
            + (f" grad_bias(%gb0 : {ttype((c.v,), 'f32')})" if b is not None else "")
            + f" filter_counts(%n0{'' if ncounts == counts else '2'} : tensor<{ncounts}xi64>) "
            + " ".join(opts))
        lines.append(print_bits(f"%gh{suffix}", (c.n, c.d), e, "gh" + suffix))
        lines.append(print_bits(f"%gw{suffix}", (c.v, c.d), e, "gw" + suffix))
        if b is not None:
            lines.append(print_bits(f"%gb{suffix}", (c.v,), "f32", "gb" + suffix))
        ct = f"{ncounts}xi64"
        lines.append(f"%nm{suffix} = bufferization.to_buffer %n{suffix} : tensor<{ct}> to memref<{ct}>\n"
                     f"  %nu{suffix} = memref.cast %nm{suffix} : memref<{ct}> to memref<*xi64>\n"
                     f"  call @printMemrefI64(%nu{suffix}) : (memref<*xi64>) -> ()")

    grad("", c.class_max, counts)
    if c.class_max:
        lines.append("%n02 = tensor.empty() : tensor<2xi64>")
        grad("_plain", False, 2)
        lines.append(print_bits("%cm", (c.n, groups), "f32", "cm"))
    text = ("func.func private @printMemrefI32(memref<*xi32>)\n"
            "func.func private @printMemrefI64(memref<*xi64>)\n"
            "func.func @main() {\n  " + "\n  ".join(lines) + "\n  return\n}\n")
    with open(path, "w") as f:
        f.write(text)
    return h, w, b, t, dl


def parse(text: str, count: int, start: int = 0):
    """`count` float outputs (printed as bits), then the filter counts,
    from the `start`th printed memref on."""
    blocks = re.split(r"Unranked Memref", text)[1:][start:]
    floats = []
    for block in blocks[:count]:
        nums = [int(x) for x in re.findall(r"-?\d+", block.split("data =", 1)[1])]
        floats.append(np.array(nums, dtype=np.int64).astype(np.int32).view(np.float32))
    counts = [int(x) for x in re.findall(r"-?\d+", blocks[count].split("data =", 1)[1])]
    return floats, counts


def rel(got, ref) -> float:
    return float(np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30))


def check(c: Case, inputs, out: str):
    h, w, b, t, dl = inputs
    # The finite-difference probes: fixed per case.
    rng = np.random.default_rng(len(c.name))
    nout = 3 if b is not None else 2
    got, counts = parse(out, nout)
    du, gh, gw, gb, wn = grads64(c, h, w, b, t, dl)
    fd_ok = finite_difference_ok(c, h, w, b, t, dl, gh, gw, rng)
    refs = [gh.ravel(), gw.ravel()] + ([gb] if b is not None else [])
    errs = [rel(g.astype(np.float64), r) for g, r in zip(got, refs)]
    eps = c.filter if c.filter is not None else (2.0 ** -12 if c.dtype == BF16 else 0.0)
    # The float64 filter count at the op's tiles: a tile is filtered when
    # every entry is negligible against its token's weight, |du| <= filter
    # |w_n| (the token's softmax gradient at most the filter); never in
    # exact mode.
    small = np.abs(du) <= eps * np.abs(wn)[:, None]
    tiles = filtered = 0
    skip = np.zeros_like(du, dtype=bool)
    for n0 in range(0, c.n, c.token_tile):
        for v0 in range(0, c.v, c.vocab_tile):
            tiles += 1
            blk = (slice(n0, n0 + c.token_tile), slice(v0, v0 + c.vocab_tile))
            skip[blk] = eps > 0 and bool(small[blk].all())
            filtered += bool(skip[blk].all())
    exact = eps == 0.0
    if exact:
        # f32 sums; bf16 adds the rounding of the outputs (2^-8).
        bound = 1e-5 if c.dtype == "f32" else 4e-3
        ok = fd_ok and all(x <= bound for x in errs)
    else:
        # The op's bound: each skipped entry is at most filter |w_n|, so
        # an element is off by at most filter times the |w_n| |W| (|w_n|
        # |h|) products it would have met in skipped tiles, plus the
        # output's rounding.
        skipw = skip * np.abs(wn)[:, None]
        gh_b = eps * (skipw @ np.abs(w.astype(np.float64)))
        gw_b = eps * (skipw.T @ np.abs(h.astype(np.float64)))
        ok = fd_ok
        for g_, r_, b_ in ((got[0], gh, gh_b), (got[1], gw, gw_b)):
            r_ = r_.reshape(b_.shape)
            g_ = g_.astype(np.float64).reshape(b_.shape)
            ok &= bool(np.all(np.abs(g_ - r_) <= b_ + 2.0 ** -8 * np.abs(r_)
                              + 1e-6 * np.abs(r_).max()))
    ok = bool(ok)
    ok &= counts[0] == tiles and abs(counts[1] - filtered) <= max(1, tiles // 100)
    ok &= (counts[1] > 0) if c.expect_filtered else (counts[1] == 0 or not exact)
    extra = ""
    if c.class_max:
        # The plain gradient's bits and counts, then class_max.
        plain, plain_counts = parse(out, nout, nout + 1)
        same = all(np.array_equal(a.view(np.int32), p.view(np.int32))
                   for a, p in zip(got, plain))
        z, _ = forward64(c, h, w, b, t)
        groups = -(-c.v // 256)
        ref_cm = np.array([[z[n, 256 * g:256 * (g + 1)].max() for g in range(groups)]
                           for n in range(c.n)])
        blocks = re.split(r"Unranked Memref", out)[1:]
        nums = [int(x) for x in re.findall(r"-?\d+", blocks[2 * nout + 2].split("data =", 1)[1])]
        cm = np.array(nums, dtype=np.int64).astype(np.int32).view(np.float32).reshape(
            c.n, groups).astype(np.float64)
        cm_err = float(np.abs(cm - ref_cm).max() / max(1.0, np.abs(ref_cm).max()))
        ok &= same and plain_counts == counts[:2] and cm_err <= 1e-5
        ok &= counts[2] <= counts[1] and ((counts[2] > 0) if not exact else counts[2] == 0)
        extra = (f", {counts[2]} before recomputing; class_max err {cm_err:.1e};"
                 f" {'same bits' if same else 'DIFFERENT bits'} without class_max"
                 f" (counts {plain_counts})")
    return ok, ("norm rel err " + ", ".join(f"{x:.1e}" for x in errs)
                + f"; tiles {counts[0]}, filtered {counts[1]} (float64 {filtered})" + extra
                + ("" if fd_ok else "; the reference fails finite differences"))


def main() -> int:
    return drive(cases(), build, check)


if __name__ == "__main__":
    sys.exit(main())
