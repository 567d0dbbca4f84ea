#!/usr/bin/env python3
"""Execution check of softmax.attention on the CPU against float64.

Builds one module with a function per case (fresh random inputs each run,
the seed printed; embedded bit-exactly as hex dense constants), lowers it
with ``softmax-opt --softmax-to-cpu[=OPTIONS]``, runs it with mlir-runner,
reads the outputs back bit-exactly (printed as i32 bits) and compares them
with a float64 reference computed from the same rounded inputs:

* output: per query row, max |o - ref| / max(max |ref|, 1e-30);
* lse: |lse - ref| / max(1, |ref|);
* fully masked rows must be exactly the masked value (0 / -inf for
  masked(zero), NaN for masked(nan)).

Prints one ``PASS``/``FAIL`` line per case and ``PASS: all checks`` at the
end; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from softmax_check import DEFAULT_SEED, resolve_seed  # noqa: E402

BF16 = "bf16"


def to_bf16(a: np.ndarray) -> np.ndarray:
    """Round f32 values to bf16 (nearest even); returns the uint16 bits."""
    bits = a.astype(np.float32).view(np.uint32)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    return (rounded >> 16).astype(np.uint16)


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


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
    dtype: str = "f32"          # inputs
    out_dtype: str = "f32"
    causal: bool = False
    window: int | None = None
    mask: str | None = None     # None, "additive", "bool"
    mask_bcast_batch: bool = False
    masked: str = "zero"
    lse: bool = True
    logit_scale: float = 1.0    # multiplies q: large values give +-1e4 logits
    scale: float | None = None
    bound: float = 2e-5
    lengths: tuple[int, ...] | None = None  # key_lengths, one per batch entry
    page_size: int | None = None  # paged keys and values (nk a multiple)
    # algorithm(unified_max, phi = unified_max); each such case runs with an
    # online twin over the same inputs. fallback: how many rows float64 puts
    # out of the unified range ("none", "some", "all").
    unified_max: float | None = None
    fallback: str | None = None


def cases() -> list[Case]:
    return [
        Case("mha", 2, 2, 2, 37, 53, 64, 64),
        Case("causal-bottom-right-d40", 1, 2, 2, 19, 45, 40, 24, causal=True),
        Case("gqa-causal-window", 1, 4, 2, 33, 33, 32, 32, causal=True, window=5),
        Case("mqa-window", 2, 3, 1, 17, 29, 16, 48, window=4, masked="nan"),
        Case("additive-mask", 2, 2, 2, 11, 23, 24, 16, mask="additive",
             mask_bcast_batch=True),
        Case("bool-mask-nan", 1, 2, 1, 13, 31, 16, 16, mask="bool", masked="nan"),
        Case("bf16", 1, 2, 2, 21, 40, 64, 64, dtype=BF16, bound=1e-2),
        Case("bf16-out", 1, 2, 2, 9, 17, 32, 32, dtype=BF16, out_dtype=BF16,
             causal=True, bound=1e-2),
        Case("large-logits", 1, 1, 1, 8, 37, 16, 16, logit_scale=3000.0, scale=1.0),
        Case("single-key", 1, 1, 1, 1, 1, 16, 16),
        Case("causal-more-queries", 1, 1, 1, 12, 5, 16, 16, causal=True),
        # A boolean mask over whole blocks of keys (Nk a multiple of 8 and
        # 16 lanes): the block's i1 load read packed bits.
        Case("bool-mask-whole-blocks", 1, 2, 2, 6, 16, 16, 16, mask="bool"),
        # Nk equal to the lanes (8, and 4 at vector-width=4): one block of
        # keys, all valid, and the i1 gather folded to a packed-bit load
        # (every output row the same; found by the differential soak).
        Case("bool-mask-one-block", 1, 2, 2, 13, 8, 7, 7, mask="bool", masked="nan",
             scale=0.125),
        Case("bool-mask-one-block-4", 1, 1, 1, 5, 4, 16, 16, mask="bool"),
        # diag + window overflowed int64 and masked every row.
        Case("int64-max-window", 1, 2, 2, 9, 13, 16, 16,
             window=9223372036854775807),
        # Decode shapes (few query rows, many keys): what split-KV is for.
        Case("decode-gqa", 2, 8, 2, 1, 1031, 64, 64, masked="nan"),
        Case("decode-4-rows-causal-bf16", 1, 4, 1, 4, 509, 32, 32, dtype=BF16,
             causal=True, bound=1e-2),
        Case("decode-bool-mask", 1, 2, 2, 3, 300, 16, 16, mask="bool"),
        # Ragged batches (key_lengths): an empty entry, a length of 1, a
        # full one, lengths past Nk and below 0 (clamped), causal decode
        # whose diagonal moves with the entry's length.
        Case("ragged-decode-gqa", 4, 8, 2, 1, 300, 64, 64, causal=True,
             lengths=(300, 1, 0, 157)),
        Case("ragged-2-rows-causal-bf16", 3, 4, 1, 2, 259, 32, 32, dtype=BF16,
             causal=True, masked="nan", lengths=(259, 64, 1), bound=1e-2),
        Case("ragged-prefill-causal", 2, 2, 2, 9, 40, 16, 16, causal=True,
             lengths=(40, 17)),
        Case("ragged-window-mask", 2, 2, 2, 5, 33, 16, 24, window=6,
             mask="additive", lengths=(20, 41)),
        Case("ragged-clamped-bool-mask", 2, 2, 1, 3, 70, 16, 16, mask="bool",
             masked="nan", lengths=(-3, 1000)),
        # Paged caches (page_table): shuffled pages shared by the batch,
        # spare pages of garbage, -1 entries past a sequence's length.
        Case("paged-decode-gqa-ragged", 3, 8, 2, 1, 80, 64, 64, causal=True,
             lengths=(80, 33, 0), page_size=16),
        Case("paged-prefill-causal-bf16", 2, 2, 2, 7, 32, 32, 32, dtype=BF16,
             causal=True, lengths=(32, 13), page_size=8, bound=1e-2),
        Case("paged-additive-mask", 2, 2, 1, 3, 24, 16, 16, mask="additive",
             page_size=4),
        # Unified max: phi near the scores (every row kept at phi), rows that
        # see no key (sum 0: the online path), phi far below the scores (the
        # f32 sums overflow: NaN without the fallback) and far above (every
        # term underflows: a masked row without it).
        Case("unified-decode-gqa", 2, 8, 2, 1, 1031, 64, 64, unified_max=2.0,
             fallback="none"),
        Case("unified-4-rows-causal-bf16", 1, 4, 1, 4, 509, 32, 32, dtype=BF16,
             causal=True, bound=1e-2, unified_max=0.0, fallback="none"),
        Case("unified-ragged-mask", 3, 4, 2, 3, 70, 16, 16, mask="additive",
             lengths=(70, 0, 33), unified_max=1.0, fallback="some"),
        Case("unified-overflow-nan", 1, 4, 2, 3, 300, 32, 32, masked="nan",
             mask="bool", unified_max=-100.0, fallback="all"),
        Case("unified-underflow", 2, 2, 2, 5, 77, 16, 16, causal=True,
             unified_max=120.0, fallback="all"),
    ]


def elt(dtype: str) -> str:
    return {"f32": "f32", BF16: "bf16"}[dtype]


def hex_dense(a: np.ndarray, dtype: str) -> str:
    if dtype == BF16:
        raw = to_bf16(a).astype("<u2").tobytes()
    elif dtype == "i1":
        # i1 elements are packed 8 to a byte, first element in the low bit.
        raw = np.packbits(a.astype(np.uint8).ravel(), bitorder="little").tobytes()
    else:
        raw = a.astype("<f4").tobytes()
    return '"0x' + raw.hex().upper() + '"'


def rounded(a: np.ndarray, dtype: str) -> np.ndarray:
    return bf16_to_f32(to_bf16(a)) if dtype == BF16 else a.astype(np.float32)


def ttype(shape: tuple[int, ...], e: str) -> str:
    return "tensor<" + "x".join(map(str, shape)) + f"x{e}>"


def build(c: Case, rng: np.random.Generator, idx: int, form: str = "dialect"):
    qs, ks = (c.b, c.h, c.nq, c.d), (c.b, c.hkv, c.nk, c.d)
    vs, os_ = (c.b, c.hkv, c.nk, c.dv), (c.b, c.h, c.nq, c.dv)
    q = rounded(rng.standard_normal(qs) * c.logit_scale, c.dtype)
    k = rounded(rng.standard_normal(ks), c.dtype)
    v = rounded(rng.standard_normal(vs), c.dtype)
    ms = (1 if c.mask_bcast_batch else c.b, c.h, c.nq, c.nk)
    mask = None
    if c.mask == "additive":
        mask = rng.standard_normal(ms).astype(np.float32)
        mask[rng.random(ms) < 0.3] = -np.inf
        mask[0, 0, 1, :] = -np.inf  # a fully masked row
    elif c.mask == "bool":
        mask = rng.random(ms) < 0.7
        mask[0, 0, 2, :] = False
    e = elt(c.dtype)
    oe = elt(c.out_dtype)
    kin, vin, table = k, v, None
    if c.page_size:
        kin, vin, table = page(c, k, v, rng)
        ks, vs = kin.shape, vin.shape
    args = [f"%q{idx} = arith.constant dense<{hex_dense(q, c.dtype)}> : {ttype(qs, e)}",
            f"%k{idx} = arith.constant dense<{hex_dense(kin, c.dtype)}> : {ttype(ks, e)}",
            f"%v{idx} = arith.constant dense<{hex_dense(vin, c.dtype)}> : {ttype(vs, e)}"]
    ins = [f"%q{idx}", f"%k{idx}", f"%v{idx}"]
    types = [ttype(qs, e), ttype(ks, e), ttype(vs, e)]
    if mask is not None:
        me = "i1" if c.mask == "bool" else "f32"
        args.append(f"%m{idx} = arith.constant dense<{hex_dense(mask, me)}> : {ttype(ms, me)}")
        ins.append(f"%m{idx}")
        types.append(ttype(ms, me))
    outs = [f"%o0_{idx}"]
    otypes = [ttype(os_, oe)]
    args.append(f"%o0_{idx} = tensor.empty() : {ttype(os_, oe)}")
    if c.lse:
        args.append(f"%l0_{idx} = tensor.empty() : {ttype(os_[:3], 'f32')}")
        outs.append(f"%l0_{idx}")
        otypes.append(ttype(os_[:3], "f32"))
    attrs = f"masked({c.masked})"
    if c.scale is not None:
        attrs += f" scale({c.scale!r})"
    if c.causal:
        attrs += " causal"
    if c.window is not None:
        attrs += f" window({c.window})"
    if c.lengths is not None:
        lt = ttype((c.b,), "i32")
        args.append(f"%len{idx} = arith.constant dense<[{', '.join(map(str, c.lengths))}]> : {lt}")
        attrs += f" key_lengths(%len{idx} : {lt})"
    if c.unified_max is not None:
        attrs += f" algorithm(unified_max, phi = {c.unified_max!r})"
    if table is not None:
        tt = ttype(table.shape, "i32")
        rows = ", ".join("[" + ", ".join(map(str, r)) + "]" for r in table)
        args.append(f"%pt{idx} = arith.constant dense<[{rows}]> : {tt}")
        attrs += f" page_table(%pt{idx} : {tt})"
    # Names the op for the transform script of --tile (discardable, kept
    # by tiling, dropped by the lowerings).
    attrs += f" {{check_case = {idx} : i64}}"
    res = f"%o{idx}, %l{idx}" if c.lse else f"%o{idx}"
    op = (f"{res} = softmax.attention ins({', '.join(ins)} : {', '.join(types)}) "
          f"outs({', '.join(outs)} : {', '.join(otypes)}) {attrs}")
    if form == "linalg":
        op = linalg_attention(c, idx, ins, types)
        args = [a for a in args if not a.startswith(f"%o0_{idx}") and not a.startswith(f"%l0_{idx}")]
    prints = [print_bits(f"%o{idx}", os_, oe, f"o{idx}")]
    if c.lse and form != "linalg":
        prints.append(print_bits(f"%l{idx}", os_[:3], "f32", f"l{idx}"))
    body = "\n  ".join(args + [op] + prints)
    return body, (q, k, v, mask)


def page(c: Case, k, v, rng):
    """The dense keys and values of case `c` ([B, Hkv, Nk, D]) as a paged
    cache [num_pages, page_size, Hkv, D] and its page table [B, P]: every
    sequence's pages at shuffled places among 3 spare pages of random
    values, and -1 in the table where a page lies wholly past the
    sequence's key_lengths (the kernels must not read it, and the clamp
    keeps the address in bounds if they did)."""
    ps = c.page_size
    assert c.nk % ps == 0
    pages = c.nk // ps
    total = c.b * pages + 3
    perm = rng.permutation(total)
    table = perm[: c.b * pages].reshape(c.b, pages).astype(np.int64)
    def cache(x):
        out = rng.standard_normal((total, ps, c.hkv, x.shape[-1])).astype(np.float32) * 50
        out = rounded(out, c.dtype)
        for bi in range(c.b):
            for p in range(pages):
                out[table[bi, p]] = x[bi, :, p * ps:(p + 1) * ps, :].transpose(1, 0, 2)
        return out
    kc, vc = cache(k), cache(v)
    if c.lengths:
        for bi, n in enumerate(c.lengths):
            first_unused = -(-max(n, 0) // ps)
            table[bi, first_unused:] = -1
    return kc, vc, table


def linalg_attention(c: Case, idx: int, ins: list[str], types: list[str]) -> str:
    """The attention of case `c` as a front end writes it in linalg on
    tensors: Q K^T as a generic contraction (K transposed by its indexing
    map), a multiply by the scale, an optional broadcast additive mask,
    linalg.softmax, and the contraction with V."""
    assert c.hkv == c.h and not c.causal and c.window is None and c.mask != "bool"
    e = elt(c.dtype)
    st = ttype((c.b, c.h, c.nq, c.nk), "f32")
    ot = ttype((c.b, c.h, c.nq, c.dv), "f32")
    scale = c.scale if c.scale is not None else float(np.float32(1.0 / np.sqrt(c.d)))
    p = f"_{idx}"
    red5 = '["parallel", "parallel", "parallel", "parallel", "reduction"]'
    par4 = '["parallel", "parallel", "parallel", "parallel"]'
    id4 = "affine_map<(b, h, i, j) -> (b, h, i, j)>"
    lines = [
        f"%zero{p} = arith.constant 0.0 : f32",
        f"%scale{p} = arith.constant {scale!r} : f32",
        f"%se{p} = tensor.empty() : {st}",
        f"%sf{p} = linalg.fill ins(%zero{p} : f32) outs(%se{p} : {st}) -> {st}",
        f"%s{p} = linalg.generic {{indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, "
        f"affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], "
        f"iterator_types = {red5}}} ins({ins[0]}, {ins[1]} : {types[0]}, {types[1]}) outs(%sf{p} : {st}) {{\n"
        f"  ^bb0(%a: {e}, %b: {e}, %c: f32):\n"
        + ("    %ae = arith.extf %a : bf16 to f32\n    %be = arith.extf %b : bf16 to f32\n"
           "    %m = arith.mulf %ae, %be : f32\n" if e == "bf16" else "    %m = arith.mulf %a, %b : f32\n")
        + f"    %r = arith.addf %c, %m : f32\n    linalg.yield %r : f32\n  }} -> {st}",
        f"%xe{p} = tensor.empty() : {st}",
        f"%x{p} = linalg.generic {{indexing_maps = [{id4}, {id4}], iterator_types = {par4}}} "
        f"ins(%s{p} : {st}) outs(%xe{p} : {st}) {{\n  ^bb0(%a: f32, %o: f32):\n"
        f"    %m = arith.mulf %a, %scale{p} : f32\n    linalg.yield %m : f32\n  }} -> {st}",
    ]
    scores = f"%x{p}"
    if c.mask == "additive":
        mt = types[3]
        mmap = ("affine_map<(b, h, i, j) -> (0, h, i, j)>" if c.mask_bcast_batch else id4)
        lines.append(f"%ae{p} = tensor.empty() : {st}")
        lines.append(
            f"%am{p} = linalg.generic {{indexing_maps = [{id4}, {mmap}, {id4}], iterator_types = {par4}}} "
            f"ins(%x{p}, {ins[3]} : {st}, {mt}) outs(%ae{p} : {st}) {{\n"
            f"  ^bb0(%a: f32, %m: f32, %o: f32):\n    %r = arith.addf %a, %m : f32\n"
            f"    linalg.yield %r : f32\n  }} -> {st}")
        scores = f"%am{p}"
    lines += [
        f"%pe{p} = tensor.empty() : {st}",
        f"%p{p} = linalg.softmax dimension(3) ins({scores} : {st}) outs(%pe{p} : {st}) -> {st}",
        f"%oe{p} = tensor.empty() : {ot}",
        f"%of{p} = linalg.fill ins(%zero{p} : f32) outs(%oe{p} : {ot}) -> {ot}",
        f"%o{idx} = linalg.generic {{indexing_maps = [affine_map<(b, h, i, n, j) -> (b, h, i, j)>, "
        f"affine_map<(b, h, i, n, j) -> (b, h, j, n)>, affine_map<(b, h, i, n, j) -> (b, h, i, n)>], "
        f"iterator_types = {red5}}} ins(%p{p}, {ins[2]} : {st}, {types[2]}) outs(%of{p} : {ot}) {{\n"
        f"  ^bb0(%a: f32, %b: {e}, %c: f32):\n"
        + ("    %be = arith.extf %b : bf16 to f32\n    %m = arith.mulf %a, %be : f32\n"
           if e == "bf16" else "    %m = arith.mulf %a, %b : f32\n")
        + f"    %r = arith.addf %c, %m : f32\n    linalg.yield %r : f32\n  }} -> {ot}",
    ]
    return "\n  ".join(lines)


def print_bits(val: str, shape: tuple[int, ...], e: str, tag: str) -> str:
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    amap = f"affine_map<({dims}) -> ({dims})>"
    its = ", ".join(['"parallel"'] * rank)
    it = ttype(shape, "i32")
    conv = "%w = arith.extf %a : bf16 to f32\n    " if e == "bf16" else ""
    src = "%w" if e == "bf16" else "%a"
    mt = it.replace("tensor", "memref")
    return (f"%e_{tag} = tensor.empty() : {it}\n"
            f"  %b_{tag} = linalg.generic {{indexing_maps = [{amap}, {amap}], iterator_types = [{its}]}}"
            f" ins({val} : {ttype(shape, e)}) outs(%e_{tag} : {it}) {{\n"
            f"  ^bb0(%a: {e}, %o: i32):\n    {conv}%c = arith.bitcast {src} : f32 to i32\n"
            f"    linalg.yield %c : i32\n  }} -> {it}\n"
            f"  %m_{tag} = bufferization.to_buffer %b_{tag} : {it} to {mt}\n"
            f"  %u_{tag} = memref.cast %m_{tag} : {mt} to memref<*xi32>\n"
            f"  call @printMemrefI32(%u_{tag}) : (memref<*xi32>) -> ()")


def reference(c: Case, q, k, v, mask):
    group = c.h // c.hkv
    kk = np.repeat(k.astype(np.float64), group, axis=1)
    vv = np.repeat(v.astype(np.float64), group, axis=1)
    scale = c.scale if c.scale is not None else float(np.float32(1.0 / np.sqrt(c.d)))
    s = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), kk) * scale
    # Key count per batch entry: Nk, or key_lengths clamped to [0, Nk].
    counts = [min(max(n, 0), c.nk) for n in c.lengths] if c.lengths else [c.nk] * c.b
    allowed = np.ones((c.b, 1, c.nq, c.nk), dtype=bool)
    for bi, n in enumerate(counts):
        i = np.arange(c.nq)[:, None] + (n - c.nq)
        j = np.arange(c.nk)[None, :]
        a = np.broadcast_to(j < n, (c.nq, c.nk)).copy()
        if c.causal:
            a &= j <= i
        if c.window is not None:
            a &= (i - j < c.window) if c.causal else (np.abs(i - j) < c.window)
        allowed[bi, 0] = a
    s = np.where(allowed, s, -np.inf)
    if mask is not None:
        if c.mask == "bool":
            s = np.where(mask, s, -np.inf)
        else:
            s = s + mask.astype(np.float64)
    m = s.max(axis=-1, keepdims=True)
    full = np.isneginf(m[..., 0])
    msafe = np.where(np.isneginf(m), 0.0, m)
    p = np.exp(s - msafe)
    l = p.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        o = np.einsum("bhij,bhjd->bhid", p, vv) / l[..., None]
        lse = msafe[..., 0] + np.log(l)
    return o, lse, full


def unified_against_online(c: Case, unified, online, lse_ref, full) -> list[str]:
    """What is wrong with unified-max case `c`'s (output, lse, error)
    `unified` against its online twin's `online`: rows out of the unified
    range (float64: not 2^-64 <= exp(lse - phi) <= 2^64) must be as many as
    `c.fallback` says; kept rows must be as accurate as online; when every
    row falls back, the results must be the online path's."""
    bad = []
    with np.errstate(invalid="ignore"):
        out = ~(np.abs(lse_ref - c.unified_max) <= 64 * np.log(2.0))
    n, total = int(out.sum()), out.size
    print(f"unified max {c.name}: phi {c.unified_max!r}, {n} of {total} rows "
          f"out of range (fallback), error {unified[2]:.3e} against online's "
          f"{online[2]:.3e}")
    want = {"none": n == 0, "some": 0 < n < total, "all": n == total}[c.fallback]
    if not want:
        bad.append(f"expected {c.fallback} rows out of range, float64 puts {n}")
    if c.fallback != "all" and not unified[2] <= 2 * online[2] + 1e-7:
        bad.append(f"unified max error {unified[2]:.3e} above online's {online[2]:.3e}")
    if c.fallback == "all":
        for got, ref, what in ((unified[0], online[0], "output"), (unified[1], online[1], "lse")):
            if got is None:
                continue
            same = (np.isnan(got) == np.isnan(ref)).all() and np.allclose(
                np.nan_to_num(got), np.nan_to_num(ref), rtol=1e-6, atol=1e-7)
            if not same:
                bad.append(f"fallback {what} differs from the online path's")
    return bad


def parallel_tile_sizes(c: Case) -> list[int]:
    """TilingInterface tile sizes (B, H, Nq) that keep case `c`'s semantics:
    one batch; query heads one at a time (for grouped-query, one of the
    G heads that share a key/value head), or 2 at a time with one key/value
    head (ragged for 3 heads); 5 query rows unless causal or windowed (the
    bottom-right diagonal depends on Nq, which a tile would change)."""
    heads = 2 if c.hkv == 1 and c.h > 1 else 1
    rows = 0 if c.causal or c.window is not None else 5
    return [1, heads, rows]


def tile(softmax_opt: str, path: str, chosen: list, sizes_of=None) -> str | None:
    """Tiles every case's softmax.attention (named by its check_case
    attribute) with upstream transform.structured.tile_using_for through its
    TilingInterface, by `sizes_of(case)` (default parallel_tile_sizes) over
    (B, H, Nq), rewriting `path`; None, or what went wrong."""
    lines = []
    want_loops = 0
    for idx, c in enumerate(chosen):
        sizes = (sizes_of or parallel_tile_sizes)(c)
        loops = sum(1 for s in sizes if s)
        # The canonicalizer drops loops of one iteration.
        want_loops += sum(1 for s, n in zip(sizes, (c.b, c.h, c.nq)) if 0 < s < n)
        print(f"tiled {c.name}: tile_using_for tile_sizes {sizes}")
        lines.append(
            f'%op{idx} = transform.structured.match ops{{["softmax.attention"]}} '
            f"attributes{{check_case = {idx} : i64}} in %root "
            ": (!transform.any_op) -> !transform.any_op")
        lines.append(
            f"%t{idx}, %l{idx}:{loops} = transform.structured.tile_using_for %op{idx} "
            f"tile_sizes {sizes} : (!transform.any_op) -> (!transform.any_op"
            + ", !transform.any_op" * loops + ")")
    script = ("module attributes {transform.with_named_sequence} {\n"
              "  transform.named_sequence @__transform_main(%root: !transform.any_op "
              "{transform.readonly}) {\n    " + "\n    ".join(lines)
              + "\n    transform.yield\n  }\n}\n")
    td = os.path.join(os.path.dirname(path), "tile.mlir")
    with open(td, "w") as f:
        f.write(script)
    tiled = subprocess.run([softmax_opt, path,
                            f"--transform-preload-library=transform-library-paths={td}",
                            "--transform-interpreter", "--canonicalize"],
                           capture_output=True, text=True)
    if tiled.returncode:
        return "tiling failed\n" + tiled.stderr[-4000:]
    got_loops = tiled.stdout.count("scf.for ")
    if got_loops != want_loops:
        return f"tiling made {got_loops} loops, expected {want_loops}"
    print(f"tiled: {got_loops} loops")
    with open(path, "w") as f:
        f.write(tiled.stdout)
    return None


def split_keys(softmax_opt: str, path: str, chosen: list[Case], splits: int) -> str | None:
    """Rewrites `path` by softmax-split-attention-keys=splits=N; returns what
    went wrong, or None. Every case must become min(N, Nk) partial
    attentions (the count is capped at the key count; a paged case's at its
    page count, each split taking whole pages), each with an lse."""
    out = subprocess.run([softmax_opt, path,
                          f"--softmax-split-attention-keys=splits={splits}"],
                         capture_output=True, text=True)
    if out.returncode:
        return "softmax-split-attention-keys failed\n" + out.stderr[-4000:]
    def units(c):
        # Cases of other checks (attention_skip_check) have no pages.
        page = getattr(c, "page_size", None)
        return -(-c.nk // page) if page else c.nk

    want = sum(min(splits, max(units(c), 1)) for c in chosen)
    got = len(re.findall(r"= softmax\.attention\b", out.stdout))
    merges = len(re.findall(r"softmax\.merge\b", out.stdout))
    want_merges = sum(min(splits, max(units(c), 1)) - 1 for c in chosen)
    if got != want or merges != want_merges:
        return (f"split made {got} attention ops and {merges} merges, expected "
                f"{want} and {want_merges}")
    print(f"split: {got} partial attentions, {merges} merges")
    with open(path, "w") as f:
        f.write(out.stdout)
    return None


def decompose(softmax_opt: str, path: str, key_tile: int) -> str | None:
    """Rewrites `path` with its attention ops decomposed by softmax-decompose
    (to linalg, arith and math); returns what went wrong, or None. The CPU
    pipeline raises linalg first: were the decomposition raised back to
    softmax.attention, the kernel would compute the result instead."""
    dec = subprocess.run([softmax_opt, path,
                          f"--softmax-decompose=attention-key-tile-size={key_tile}"],
                         capture_output=True, text=True)
    if dec.returncode:
        return "softmax-decompose failed\n" + dec.stderr[-4000:]
    if re.search(r"\bsoftmax\.", dec.stdout):
        return "softmax ops left after softmax-decompose"
    with open(path, "w") as f:
        f.write(dec.stdout)
    raised = subprocess.run([softmax_opt, path, "--softmax-raise"],
                            capture_output=True, text=True)
    if raised.returncode:
        return "softmax-raise failed\n" + raised.stderr[-4000:]
    if re.search(r"\bsoftmax\.", raised.stdout):
        return "softmax-raise raised the decomposition back"
    return None


def lower_and_run(softmax_opt: str, mlir_runner: str, runner_libs: str, path: str,
                  pipeline_options: str) -> tuple[str, str | None]:
    """softmax-to-cpu[=pipeline_options] on `path`, then mlir-runner on its
    @main: (what it printed, None), or ("", what went wrong)."""
    flag = "--softmax-to-cpu" + (f"={pipeline_options}" if pipeline_options else "")
    low = subprocess.run([softmax_opt, path, flag], capture_output=True, text=True)
    if low.returncode:
        return "", "lowering failed\n" + low.stderr[-4000:]
    libs = runner_libs.split("=", 1)[-1]
    run = subprocess.run([mlir_runner, "-e", "main", "-entry-point-result=void",
                          f"-shared-libs={libs}"], input=low.stdout,
                         capture_output=True, text=True)
    if run.returncode:
        return "", "run failed\n" + run.stderr[-4000:]
    return run.stdout, None


def parse_i32(text: str) -> list[np.ndarray]:
    out = []
    for block in re.split(r"Unranked Memref", text)[1:]:
        data = block.split("data =", 1)[1]
        nums = [int(x) for x in re.findall(r"-?\d+", data)]
        out.append(np.array(nums, dtype=np.int64).astype(np.int32).view(np.float32))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--softmax-opt", required=True)
    ap.add_argument("--mlir-runner", required=True)
    ap.add_argument("--runner-libs", required=True)
    ap.add_argument("--pipeline-options", default="")
    ap.add_argument("--seed", default=None,
                    help=f"a number, or 'random' (default: $SOFTMAX_TEST_SEED or {DEFAULT_SEED})")
    ap.add_argument("--only", default=None)
    ap.add_argument("--form", choices=("dialect", "linalg"), default="dialect",
                    help="linalg: the cases a front end can write in linalg "
                         "(no causal, window or boolean mask), raised by "
                         "softmax-raise, which must produce one "
                         "softmax.attention per case")
    ap.add_argument("--decompose", type=int, default=None, metavar="T",
                    help="lower through softmax-decompose first "
                         "(attention-key-tile-size=T, 0: untiled), check "
                         "that no softmax op is left and that softmax-raise "
                         "raises nothing back, then run softmax-to-cpu on "
                         "the linalg")
    ap.add_argument("--tile", action="store_true",
                    help="tile every op over (B, H, Nq) with upstream "
                         "tile_using_for first (the CPU kernel then reads "
                         "strided tiles of the buffers; with --decompose, "
                         "the tiles are decomposed)")
    ap.add_argument("--split-keys", type=int, default=None, metavar="N",
                    help="split every attention along its keys into N "
                         "partial attentions merged by softmax.merge "
                         "(softmax-split-attention-keys) first; windowed "
                         "cases, which it refuses, are left out")
    args = ap.parse_args()
    seed = resolve_seed(args.seed)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    chosen = [c for c in cases() if not args.only or args.only in c.name]
    if args.form == "linalg":
        # linalg.softmax gives NaN for a row of -inf: the raised op is
        # masked(nan).
        chosen = [dataclasses.replace(c, lse=False, masked="nan") for c in chosen
                  if c.hkv == c.h and not c.causal and c.window is None
                  and c.mask != "bool" and c.out_dtype == "f32"
                  and c.unified_max is None]
    if args.split_keys is not None:
        # The split refuses windows and causal ragged ops of more than one
        # query row.
        kept = [c for c in chosen if c.window is None
                and not (c.lengths and c.causal and c.nq > 1)]
        print(f"split-keys: {len(chosen) - len(kept)} windowed or causal "
              "ragged multi-row cases left out")
        chosen = kept
    # Each unified-max case is followed by its online twin, built from the
    # same random draws.
    paired = []
    for c in chosen:
        paired.append(c)
        if c.unified_max is not None:
            paired.append(dataclasses.replace(c, name=c.name + "-online-twin",
                                              unified_max=None, fallback=None))
    chosen = paired
    bodies, inputs = [], []
    state = None
    for idx, c in enumerate(chosen):
        if c.name.endswith("-online-twin"):
            rng.bit_generator.state = state
        state = rng.bit_generator.state
        body, ins = build(c, rng, idx, args.form)
        bodies.append(body)
        inputs.append(ins)
    module = ("func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}\n"
              "func.func @main() {\n  " + "\n  ".join(bodies) + "\n  return\n}\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "attention.mlir")
        with open(path, "w") as f:
            f.write(module)
        if args.form == "linalg":
            raised = subprocess.run([args.softmax_opt, path, "--softmax-raise"],
                                    capture_output=True, text=True)
            if raised.returncode:
                print("FAIL: softmax-raise failed\n" + raised.stderr[-4000:])
                return 1
            count = raised.stdout.count("softmax.attention")
            print(f"raised: {count} softmax.attention for {len(chosen)} cases")
            if count != len(chosen):
                print("FAIL: not every attention graph was raised")
                return 1
            with open(path, "w") as f:
                f.write(raised.stdout)
        if args.split_keys is not None:
            err = split_keys(args.softmax_opt, path, chosen, args.split_keys)
            if err:
                print("FAIL: " + err)
                return 1
        if args.tile:
            err = tile(args.softmax_opt, path, chosen)
            if err:
                print("FAIL: " + err)
                return 1
        if args.decompose is not None:
            err = decompose(args.softmax_opt, path, args.decompose)
            if err:
                print("FAIL: " + err)
                return 1
            print(f"decomposed (attention-key-tile-size={args.decompose}): "
                  "no softmax op left, none raised back")
        stdout, err = lower_and_run(args.softmax_opt, args.mlir_runner, args.runner_libs,
                                    path, args.pipeline_options)
        if err:
            print("FAIL: " + err)
            return 1
    outs = parse_i32(stdout)
    failed = 0
    pos = 0
    results = {}
    for c, (q, k, v, mask) in zip(chosen, inputs):
        o_ref, lse_ref, full = reference(c, q, k, v, mask)
        o = outs[pos].reshape(o_ref.shape).astype(np.float64)
        pos += 1
        lse = None
        if c.lse:
            lse = outs[pos].reshape(lse_ref.shape).astype(np.float64)
            pos += 1
        bad = []
        # Fully masked rows: exactly the masked value.
        if full.any():
            want_o = np.nan if c.masked == "nan" else 0.0
            got = o[full]
            ok = np.isnan(got).all() if c.masked == "nan" else (got == 0).all()
            if not ok:
                bad.append(f"masked rows: output not {want_o}")
            if lse is not None:
                gl = lse[full]
                ok = np.isnan(gl).all() if c.masked == "nan" else np.isneginf(gl).all()
                if not ok:
                    bad.append("masked rows: lse not " + ("nan" if c.masked == "nan" else "-inf"))
        live = ~full
        err = 0.0
        if live.any():
            diff = np.abs(o - o_ref).max(axis=-1)[live]
            norm = np.maximum(np.abs(o_ref).max(axis=-1)[live], 1e-30)
            err = float(np.nanmax(np.where(np.isnan(diff), np.inf, diff / norm)))
            if not err <= c.bound:
                bad.append(f"output err {err:.3e} > {c.bound:g}")
            if lse is not None:
                le = np.abs(lse[live] - lse_ref[live]) / np.maximum(1.0, np.abs(lse_ref[live]))
                lerr = float(np.where(np.isnan(le), np.inf, le).max())
                if not lerr <= c.bound:
                    bad.append(f"lse err {lerr:.3e} > {c.bound:g}")
                err = max(err, lerr)
        results[c.name] = (o, lse, err)
        twin = results.get(c.name[:-len("-online-twin")]) if c.name.endswith("-online-twin") else None
        if twin is not None:
            bad += unified_against_online(chosen[chosen.index(c) - 1], twin,
                                          (o, lse, err), lse_ref, full)
        status = "FAIL" if bad else "PASS"
        failed += bool(bad)
        print(f"{status} attention {c.name} ({c.dtype}->{c.out_dtype}): max err {err:.3e} "
              f"(bound {c.bound:g}), {int(full.sum())} fully masked rows"
              + ("; " + "; ".join(bad) if bad else ""))
    if failed:
        print(f"FAIL: {failed} case(s)")
        return 1
    print("PASS: all checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
