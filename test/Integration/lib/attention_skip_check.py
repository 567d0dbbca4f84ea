#!/usr/bin/env python3
"""Execution check of softmax.attention's skip threshold on the CPU.

Every case runs on structured inputs (python/softmax_mlir/structured.py:
sinks, a local band, topic segments), where key tiles do fall below the
threshold; random Gaussian inputs skip nothing and would prove nothing. The
module is lowered with ``softmax-opt --softmax-to-cpu=OPTIONS`` and run with
mlir-runner; the outputs, lse and skip counts are read back bit-exactly and
checked against float64:

* the counts: the live (query tile, key tile) pairs must be exactly the
  reference's (they depend on causal, window and mask only); the skipped
  ones may differ from the float64 rule's by the ties the f32 scores can
  tip (at most 1% of the live pairs, and at least one skipped where the
  case expects skipping, none where lambda turns it off);
* the output of each row against the dense float64 attention, within the
  bound the op's description states: ``e_i (max_j v_j - min_j v_j)`` per
  column, ``e_i = n_i Kt lambda`` for the row's ``n_i`` skipped tiles, plus
  the f32 (or bf16) rounding bound; the lse within ``-ln(1 - e_i)`` plus
  rounding;
* rows that see no key: the masked value.

Prints one ``PASS``/``FAIL`` line per case with the skip fraction and
``PASS: all checks`` at the end; exits 1 on any failure.
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
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
from attention_check import (BF16, hex_dense, lower_and_run, print_bits, split_keys, tile,  # noqa: E402
                             rounded, ttype)
from softmax_check import DEFAULT_SEED, resolve_seed  # noqa: E402
from softmax_mlir.structured import structured_qkv  # noqa: E402


@dataclasses.dataclass
class Case:
    name: str
    b: int
    h: int
    hkv: int
    nq: int
    nk: int
    d: int
    dv: int
    tile: tuple[int, int]
    lam: tuple[float, ...]      # one value, or one per batch entry
    kind: str = "lambda"        # or "scale_factor" (lam is a)
    per_batch: bool = False
    dtype: str = "f32"
    causal: bool = False
    window: int | None = None
    mask: bool = False          # an additive mask with -inf entries
    peak: float = 8.0
    expect_skips: bool = True
    masked: str = "zero"
    # Q/K/V from a trained model (test/Integration/data/blasst, layer N)
    # instead of the generator: [2 heads, 512 tokens, 128].
    model_layer: int | None = None


def cases() -> list[Case]:
    return [
        # One query row per tile, 16 keys: the CPU kernel's geometry.
        Case("causal-rows", 1, 2, 2, 48, 700, 32, 16, (1, 16), (1e-3,), causal=True),
        # Query tiles of 16 rows (40 rows: a short last tile), 64 keys,
        # grouped-query heads, bf16.
        Case("gqa-query-tiles-bf16", 1, 4, 2, 40, 515, 32, 32, (16, 64), (1e-2,),
             dtype=BF16, causal=True),
        # One lambda per batch entry: skipping, 0 (dense), 1 (off).
        Case("per-batch", 3, 2, 2, 17, 300, 16, 16, (1, 32), (1e-2, 0.0, 1.0),
             per_batch=True),
        # Blocks of 8 keys (the vector path at 8 lanes), grouped-query heads,
        # one lambda per batch entry.
        Case("gqa-per-batch-8", 2, 4, 2, 21, 333, 32, 16, (1, 8), (3e-3, 1e-2),
             per_batch=True, causal=True),
        # lambda = a / Nk (TensorRT-LLM's form): 2 / 611.
        Case("scale-factor", 1, 2, 1, 9, 611, 32, 8, (4, 16), (2.0,),
             kind="scale_factor"),
        # A window and an additive mask: tiles they hide are not live.
        Case("window-mask", 1, 2, 2, 33, 257, 16, 16, (1, 16), (1e-2,), window=100,
             mask=True, masked="nan"),
        # lambda 0.9 skips every tile within 0.1 of the running max, the
        # first tile of a row excepted: were it skipped, the counts would
        # exceed the float64 rule's and the row would come out empty.
        Case("first-tile", 1, 2, 2, 24, 160, 16, 16, (1, 16), (0.9,), peak=0.0),
        # lambda >= 1 and NaN turn skipping off; the output is the dense one.
        Case("lambda-one", 1, 2, 2, 16, 200, 16, 16, (1, 16), (1.0,), expect_skips=False),
        Case("lambda-nan", 1, 1, 1, 8, 100, 16, 16, (1, 16), (float("nan"),),
             expect_skips=False),
        # Random Gaussian rows (peak 0): nothing to skip at this lambda.
        Case("gaussian", 1, 2, 2, 16, 256, 16, 16, (1, 16), (1e-4,), peak=0.0,
             expect_skips=False),
        # A trained byte-level language model's attention (bench/blasst,
        # 512 tokens of held-out Python source): an early and the last layer.
        Case("model-layer1", 1, 2, 2, 512, 512, 128, 128, (1, 16), (1e-3,),
             causal=True, model_layer=1),
        Case("model-layer3-query-tiles", 1, 2, 2, 512, 512, 128, 128, (16, 64),
             (1e-2,), causal=True, model_layer=3),
        # Query tiles of a GPU block's rows (128: all of them must let a
        # key tile go), on structured rows: fewer skips than [16, 64].
        Case("block-tiles", 1, 2, 2, 300, 1000, 64, 64, (128, 64), (1e-2,),
             causal=True, peak=12.0),
        # No keys (L = 0): a / 0 must not trap, every row is masked.
        Case("no-keys", 1, 1, 1, 4, 0, 16, 16, (1, 16), (1.0,), kind="scale_factor",
             expect_skips=False),
    ]


def lambdas(c: Case) -> np.ndarray:
    """lambda per batch entry."""
    vals = np.array(c.lam if c.per_batch else c.lam * c.b, dtype=np.float64)
    if c.kind == "scale_factor":
        with np.errstate(divide="ignore", invalid="ignore"):
            vals = vals / c.nk
    return vals


DATA = os.path.join(HERE, "..", "data", "blasst")


def make_inputs(c: Case, rng: np.random.Generator):
    if c.model_layer is not None:
        q, k, v = (np.load(os.path.join(DATA, f"{n}_layer{c.model_layer}.npy"))
                   .astype(np.float32)[None] for n in "qkv")
    elif c.peak > 0:
        q, k, v = structured_qkv(rng, c.b, c.h, c.hkv, c.nq, c.nk, c.d, c.dv,
                                 peak=c.peak)
    else:
        q = rng.standard_normal((c.b, c.h, c.nq, c.d)).astype(np.float32)
        k = rng.standard_normal((c.b, c.hkv, c.nk, c.d)).astype(np.float32)
        v = rng.standard_normal((c.b, c.hkv, c.nk, c.dv)).astype(np.float32)
    q, k, v = rounded(q, c.dtype), rounded(k, c.dtype), rounded(v, c.dtype)
    mask = None
    if c.mask:
        mask = rng.standard_normal((c.b, c.h, c.nq, c.nk)).astype(np.float32)
        mask[rng.random(mask.shape) < 0.2] = -np.inf
        mask[0, 0, 3, :] = -np.inf  # a row that sees nothing
    return q, k, v, mask


def scores(c: Case, q, k, mask) -> np.ndarray:
    group = c.h // c.hkv
    kk = np.repeat(k.astype(np.float64), group, axis=1)
    scale = float(np.float32(1.0 / np.sqrt(c.d)))
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), kk) * scale
    i = np.arange(c.nq)[:, None] + (c.nk - c.nq)
    j = np.arange(c.nk)[None, :]
    allowed = np.ones((c.nq, c.nk), dtype=bool)
    if c.causal:
        allowed &= j <= i
    if c.window is not None:
        allowed &= (i - j < c.window) if c.causal else (np.abs(i - j) < c.window)
    s = np.where(allowed, s, -np.inf)
    if mask is not None:
        s = s + mask.astype(np.float64)
    return s


def fold(c: Case, s: np.ndarray, v: np.ndarray, lam: np.ndarray):
    """The op's rule in float64: (o, lse, live, skipped, skipped tiles per
    row, near-tie tiles per row)."""
    qt, kt = c.tile
    b, h, nq = c.b, c.h, c.nq
    vv = np.repeat(v.astype(np.float64), c.h // c.hkv, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        loglam = np.where((lam > 0) & (lam < 1), np.log(np.where(lam > 0, lam, 1)), -np.inf)
    ll = loglam[:, None, None]
    m = np.full((b, h, nq), -np.inf)
    l = np.zeros((b, h, nq))
    o = np.zeros((b, h, nq, c.dv))
    nt = -(-nq // qt)
    pad = nt * qt - nq
    live = skipped = 0
    nskip = np.zeros((b, h, nq))
    ties = np.zeros((b, h, nq))

    def tiles(x, fill, red):
        x = np.concatenate([x, np.full((b, h, pad), fill)], axis=-1).reshape(b, h, nt, qt)
        return red(x, axis=-1)

    def rows(x):
        return np.repeat(x, qt, axis=-1)[..., :nq]

    for k0 in range(0, c.nk, kt):
        st = s[..., k0:k0 + kt]
        tm = st.max(axis=-1)
        with np.errstate(invalid="ignore"):
            d = tm - m
            allow = np.isneginf(tm) | (d < ll)
            near = ~np.isneginf(tm) & (np.abs(d - ll) < 1e-3)
        sees = ~np.isneginf(tm)
        tile_allow = tiles(allow, True, np.all)
        tile_sees = tiles(sees, False, np.any)
        tile_near = tiles(near, False, np.any)
        live += int(tile_sees.sum())
        skipped += int((tile_allow & tile_sees).sum())
        skip_rows = rows(tile_allow)
        nskip += skip_rows & rows(tile_sees)
        ties += rows(tile_near & tile_sees)
        mn = np.maximum(m, tm)
        ms = np.where(np.isneginf(mn), 0.0, mn)
        with np.errstate(invalid="ignore"):
            a = np.exp(np.where(np.isneginf(m), -np.inf, m - ms))
        p = np.exp(st - ms[..., None])
        ln = l * a + p.sum(axis=-1)
        on = o * a[..., None] + np.einsum("bhij,bhjd->bhid", p, vv[:, :, k0:k0 + kt])
        m = np.where(skip_rows, m, mn)
        l = np.where(skip_rows, l, ln)
        o = np.where(skip_rows[..., None], o, on)
    with np.errstate(invalid="ignore", divide="ignore"):
        return o / l[..., None], np.where(np.isneginf(m), 0, m) + np.log(l), live, \
            skipped, nskip, ties


def build(c: Case, idx: int, q, k, v, mask, dense: bool = False, counts: bool = True):
    e = "bf16" if c.dtype == BF16 else "f32"
    qs, ks = (c.b, c.h, c.nq, c.d), (c.b, c.hkv, c.nk, c.d)
    vs, os_ = (c.b, c.hkv, c.nk, c.dv), (c.b, c.h, c.nq, c.dv)
    lines = [f"%q{idx} = arith.constant dense<{hex_dense(q, c.dtype)}> : {ttype(qs, e)}",
             f"%k{idx} = arith.constant dense<{hex_dense(k, c.dtype)}> : {ttype(ks, e)}",
             f"%v{idx} = arith.constant dense<{hex_dense(v, c.dtype)}> : {ttype(vs, e)}"]
    ins, types = [f"%q{idx}", f"%k{idx}", f"%v{idx}"], [ttype(qs, e), ttype(ks, e), ttype(vs, e)]
    if mask is not None:
        lines.append(f"%m{idx} = arith.constant dense<{hex_dense(mask, 'f32')}> : "
                     f"{ttype(mask.shape, 'f32')}")
        ins.append(f"%m{idx}")
        types.append(ttype(mask.shape, "f32"))
    lam_ir = tuple(0.0 for _ in c.lam) if dense else c.lam
    if c.per_batch:
        vals = np.array(lam_ir, dtype=np.float32)
        ttype_t = ttype((c.b,), "f32")
        lines.append(f"%t{idx} = arith.constant dense<{hex_dense(vals, 'f32')}> : {ttype_t}")
    else:
        ttype_t = "f32"
        bits = np.array([lam_ir[0]], dtype="<f4").view("<u4")[0]
        lines.append(f"%t{idx} = arith.constant 0x{bits:08X} : f32")
    lines += [f"%o0_{idx} = tensor.empty() : {ttype(os_, 'f32')}",
              f"%l0_{idx} = tensor.empty() : {ttype(os_[:3], 'f32')}"]
    if counts:
        lines.append(f"%n0_{idx} = tensor.empty() : tensor<2xi64>")
    attrs = f"masked({c.masked})"
    if c.causal:
        attrs += " causal"
    if c.window is not None:
        attrs += f" window({c.window})"
    attrs += f" skip({c.kind} %t{idx} : {ttype_t}, tile [{c.tile[0]}, {c.tile[1]}])"
    if counts:
        attrs += f" skip_counts(%n0_{idx} : tensor<2xi64>)"
    else:
        # Names the op for the transform script of --tile.
        attrs += f" {{check_case = {idx} : i64}}"
    res = f"%o{idx}, %l{idx}" + (f", %n{idx}" if counts else "")
    lines.append(
        f"{res} = softmax.attention ins({', '.join(ins)} : {', '.join(types)}) "
        f"outs(%o0_{idx}, %l0_{idx} : {ttype(os_, 'f32')}, {ttype(os_[:3], 'f32')}) {attrs}")
    lines.append(print_bits(f"%o{idx}", os_, "f32", f"o{idx}"))
    lines.append(print_bits(f"%l{idx}", os_[:3], "f32", f"l{idx}"))
    if not counts:
        return "\n  ".join(lines)
    lines.append(f"%nm{idx} = bufferization.to_buffer %n{idx} : tensor<2xi64> to memref<2xi64>\n"
                 f"  %nu{idx} = memref.cast %nm{idx} : memref<2xi64> to memref<*xi64>\n"
                 f"  call @printMemrefI64(%nu{idx}) : (memref<*xi64>) -> ()")
    return "\n  ".join(lines)


def split_outputs(text: str):
    """The printed memrefs in order: i32 bit patterns (floats) and i64s."""
    import re
    out = []
    for block in re.split(r"Unranked Memref", text)[1:]:
        data = block.split("data =", 1)[1]
        nums = [int(x) for x in re.findall(r"-?\d+", data)]
        out.append(nums)
    return out


def split_ranges(c: Case, splits: int) -> list[tuple[int, int]]:
    """The key ranges softmax-split-attention-keys gives the splits: ceil(Nk /
    S) keys (with causal, at least Nq - 1) counted back from the last key."""
    splits = min(splits, max(c.nk, 1))
    size = max(-(-c.nk // splits), c.nq - 1 if c.causal else 0)
    return [(max(c.nk - (splits - s) * size, 0), max(c.nk - (splits - 1 - s) * size, 0))
            for s in range(splits)]


def split_fold(c: Case, s: np.ndarray, v: np.ndarray, lam: np.ndarray, splits: int):
    """fold's counts (live, skipped, skipped and near-tie tiles per row) over
    the splits, each folding its own key tiles from its first key: the rule
    the split op computes (a split's first tile is never skipped)."""
    live = skipped = 0
    nskip = np.zeros((c.b, c.h, c.nq))
    ties = np.zeros((c.b, c.h, c.nq))
    for a, e in split_ranges(c, splits):
        _, _, lv, sk, ns, ti = fold(dataclasses.replace(c, nk=e - a), s[..., a:e],
                                    v[:, :, a:e], lam)
        live, skipped, nskip, ties = live + lv, skipped + sk, nskip + ns, ties + ti
    return live, skipped, nskip, ties


def check(c: Case, got_o, got_l, counts, q, k, v, mask,
          splits: int | None = None) -> tuple[bool, str]:
    lam = lambdas(c)
    s = scores(c, q, k, mask)
    dense_o, dense_l, *_ = fold(dataclasses.replace(c, tile=(1, max(c.nk, 1))), s, v,
                                np.zeros(c.b))
    if splits:
        live, skipped, nskip, ties = split_fold(c, s, v, lam, splits)
    else:
        _, _, live, skipped, nskip, ties = fold(c, s, v, lam)
    bad = []
    got_live, got_skipped = counts
    if got_live != live:
        bad.append(f"live tiles {got_live}, expected {live}")
    if abs(got_skipped - skipped) > max(1, live // 100) if c.expect_skips else got_skipped:
        bad.append(f"skipped tiles {got_skipped}, the float64 rule skips {skipped}")
    if c.expect_skips and got_skipped == 0:
        bad.append("nothing skipped: the case proves nothing")
    full = ~np.isfinite(s).any(axis=-1)
    tol = 1e-2 if c.dtype == BF16 else 2e-5
    worst = 0.0
    if full.any():
        ok = np.isnan(got_o[full]).all() if c.masked == "nan" else (got_o[full] == 0).all()
        if not ok:
            bad.append("rows that see no key: output not the masked value")
    live_rows = ~full
    # A row that sees a key keeps at least its first tile: never empty.
    if (live_rows & ~np.isfinite(got_l)).any():
        idx = tuple(np.argwhere(live_rows & ~np.isfinite(got_l))[0])
        bad.append(f"row {idx} sees keys but came out empty (lse {got_l[idx]!r}): "
                   "its first tile was skipped")
    if live_rows.any():
        # The skipped share e_i <= (n_i + ties_i) Kt lambda_b.
        lam_b = np.where((lam > 0) & (lam < 1), lam, 0.0)[:, None, None]
        # e_i >= 1 leaves no bound (the rule promises nothing there).
        e = np.minimum((nskip + ties) * c.tile[1] * lam_b, 1.0)
        vv = np.repeat(v.astype(np.float64), c.h // c.hkv, axis=1)
        vrange = (vv.max(axis=2) - vv.min(axis=2)) if c.nk else np.zeros((c.b, c.h, c.dv))
        norm = np.maximum(np.abs(dense_o).max(axis=-1), 1e-30)
        bound = e[..., None] * vrange[:, :, None, :] + tol * norm[..., None]
        diff = np.abs(got_o - dense_o)
        over = (~(diff <= bound)).any(axis=-1) & live_rows
        if over.any():
            idx = np.argwhere(over)[0]
            bad.append(f"row {tuple(idx)}: |o - dense| {diff[tuple(idx)].max():.3e} over the "
                       f"bound {bound[tuple(idx)].min():.3e} (e_i {e[tuple(idx)]:.3e})")
        with np.errstate(divide="ignore"):
            lb = -np.log1p(-e) + tol * np.maximum(1.0, np.abs(dense_l))
        ldiff = np.abs(got_l - dense_l)
        lover = ~(ldiff <= lb) & live_rows
        if lover.any():
            idx = tuple(np.argwhere(lover)[0])
            bad.append(f"row {idx}: |lse - dense| {ldiff[idx]:.3e} over {lb[idx]:.3e}")
        worst = float(np.nanmax(np.where(live_rows, np.abs(got_o - dense_o).max(axis=-1)
                                         / norm, 0)))
    frac = got_skipped / got_live if got_live else 0.0
    line = (f"{c.name}: live {got_live} skipped {got_skipped} ({100 * frac:.1f}%; "
            f"float64 rule {skipped}), max err vs dense {worst:.3e}")
    return not bad, line + ("; " + "; ".join(bad) if bad else "")


def tile_sizes(c: Case) -> list[int]:
    """(B, H, Nq) tiles of one batch entry and one head, and rows in whole
    query tiles (two of them) where the rows may be tiled (not under causal
    or a window, whose diagonal depends on Nq)."""
    rows = 0 if c.causal or c.window is not None or 2 * c.tile[0] >= c.nq \
        else 2 * c.tile[0]
    return [1, 1, rows]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--softmax-opt", required=True)
    ap.add_argument("--mlir-runner", required=True)
    ap.add_argument("--runner-libs", required=True)
    ap.add_argument("--pipeline-options", default=None,
                    help="softmax-to-cpu options (default: vector-width=W)")
    ap.add_argument("--seed", default=None,
                    help=f"a number, or 'random' (default: $SOFTMAX_TEST_SEED or {DEFAULT_SEED})")
    ap.add_argument("--only", default=None)
    ap.add_argument("--vector-width", type=int, default=0, metavar="W",
                    help="run the CPU vector path at W lanes (vector-width=W) on the "
                         "cases whose tile is [1, W], the tile it honours; 0: the "
                         "decomposition (vector-width=0) on every case")
    ap.add_argument("--tile", action="store_true",
                    help="also run every case without counts, tiled over (B, H, Nq) by "
                         "tile_using_for through the op's TilingInterface: its outputs "
                         "must equal the untiled op's bit for bit")
    ap.add_argument("--split-keys", type=int, default=None, metavar="N",
                    help="split every op along its keys into N partial attentions "
                         "(softmax-split-attention-keys) first; the counts are then "
                         "the float64 rule's per split, windowed cases are left out")
    ap.add_argument("--self-test", action="store_true",
                    help="compile every op with lambda 0 (a kernel that drops the "
                         "threshold): each case that expects skipping must fail")
    args = ap.parse_args()
    seed = resolve_seed(args.seed)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    chosen = [c for c in cases() if (not args.only or args.only in c.name)
              and (not args.vector_width or c.tile == (1, args.vector_width))
              and (args.split_keys is None or c.window is None)]
    if args.pipeline_options is None:
        args.pipeline_options = f"vector-width={args.vector_width}"
    inputs = [make_inputs(c, rng) for c in chosen]
    body = "\n  ".join(build(c, i, *ins, dense=args.self_test)
                       for i, (c, ins) in enumerate(zip(chosen, inputs)))
    def main_module(body: str) -> str:
        return ("func.func private @printMemrefI32(memref<*xi32>) attributes "
                "{llvm.emit_c_interface}\n"
                "func.func private @printMemrefI64(memref<*xi64>) attributes "
                "{llvm.emit_c_interface}\n"
                "func.func @main() {\n  " + body + "\n  return\n}\n")
    module = main_module(body)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "skip.mlir")
        with open(path, "w") as f:
            f.write(module)
        if args.split_keys is not None:
            err = split_keys(args.softmax_opt, path, chosen, args.split_keys)
            if err:
                print("FAIL: " + err)
                return 1
        stdout, err = lower_and_run(args.softmax_opt, args.mlir_runner, args.runner_libs,
                                    path, args.pipeline_options)
        if err:
            print("FAIL: " + err)
            return 1
        tiled_printed = None
        if args.tile:
            body = "\n  ".join(build(c, i, *ins, counts=False)
                               for i, (c, ins) in enumerate(zip(chosen, inputs)))
            tpath = os.path.join(tmp, "skip_untiled.mlir")
            with open(tpath, "w") as f:
                f.write(main_module(body))
            why = tile(args.softmax_opt, tpath, chosen, tile_sizes)
            if why:
                print("FAIL: " + why)
                return 1
            tout, err = lower_and_run(args.softmax_opt, args.mlir_runner, args.runner_libs,
                                      tpath, args.pipeline_options)
            if err:
                print("FAIL: tiled: " + err)
                return 1
            tiled_printed = split_outputs(tout)
    printed = split_outputs(stdout)
    failed = 0
    for i, (c, (q, k, v, mask)) in enumerate(zip(chosen, inputs)):
        o_bits, l_bits, counts = printed[3 * i:3 * i + 3]
        as_f32 = lambda x: np.array(x, dtype=np.int64).astype(np.int32).view(np.float32)
        got_o = as_f32(o_bits).reshape(c.b, c.h, c.nq, c.dv).astype(np.float64)
        got_l = as_f32(l_bits).reshape(c.b, c.h, c.nq).astype(np.float64)
        ok, line = check(c, got_o, got_l, counts, q, k, v, mask, args.split_keys)
        if tiled_printed is not None:
            same = (tiled_printed[2 * i] == o_bits and tiled_printed[2 * i + 1] == l_bits)
            ok &= same
            line += "; tiled " + ("identical" if same else "DIFFERS")
        if args.self_test:
            # A dropped threshold must be caught where skipping is expected.
            caught = not ok
            ok = caught == c.expect_skips
            line += "; dropped threshold " + ("caught" if caught else "not caught")
        failed += not ok
        print(("PASS" if ok else "FAIL") + " attention-skip " + line)
    if failed:
        print(f"FAIL: {failed} case(s)")
        return 1
    print("PASS: all checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
