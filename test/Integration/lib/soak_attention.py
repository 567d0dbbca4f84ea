"""Random softmax.attention programs for the differential soak
(diff_soak.py): drawing, MLIR text, float64 reference and check.

A program is one ``func.func`` holding one attention op: multi-head,
grouped-query or multi-query heads, ``Nq != Nk`` (either way), batch,
lengths and head dimensions including 0, 1 and odd sizes; f32, bf16 or f16
inputs, an f32 or input-typed output, with or without ``lse``; ``causal``,
``window(w)``, an additive (f32 or input-typed) or boolean mask that may
broadcast over the batch or the heads and may hide whole rows; both masked
modes; the default or an explicit scale; logits of order 1 or up to
``+-1e4``; optionally a ``#softmax.attention_cpu_strategy`` request; and
optionally a skip threshold (``skip(lambda|scale_factor ...)``, a scalar or
per-batch lambda including the values that turn skipping off, a random
tile, or ``[1, W]`` on the vector path; diff_soak.py sets it) with
``skip_counts``.

Skip threshold. The reference stays the dense attention; the op's rule is
emulated in float64 (key tiles in order, the running max of the earlier
tiles) to count each row's skipped tiles ``n_i`` and, per key tile, the
live and skipped pairs. The bound adds the stated error of skipping,
``e_i (max_j v_j - min_j v_j)`` with ``e_i = n_i Kt lambda`` on the output
and ``-ln(1 - e_i)`` on ``lse``; tiles whose test lies within the scores'
f32 error of ``ln(lambda)`` may go either way, so they count in ``n_i`` too
and the counts may differ from the float64 rule's by them (the live pairs
must match exactly).

Bounds. The reference is computed in float64 from the rounded inputs, but
the kernel forms the scores in f32, and a score's f32 rounding error is
inherent to the op (no f32 kernel can avoid it), so the bound adds the
forward error of an f32 dot product of length D (``gamma = (D + 2) u``,
``u = 2^-24``, times ``sum_i |q_i k_i| scale``) propagated through the
softmax (at most twice that, times ``max |v|``, on the output; once on
``lse``), and the error of the f32 sum ``sum_j p_j v_j`` (``(Nk + 4) u
sum_j p_j |v_j|``: a row of outputs that cancel to almost nothing can not
have a small relative error), and half the output type's subnormal
spacing (the rounding of outputs that small), to a flat part: 2e-5 of the
row's largest output for f32 (the bound of attention_check.py), 1e-2 for
bf16 and 2e-3 for f16 outputs (one rounding of the output, as
softmax_check.py's bounds).
"""

from __future__ import annotations

import dataclasses
import os
import sys

import numpy as np

from soak_mlir import dense, print_bits, ttype
from softmax_check import quantize

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python"))
from softmax_mlir.structured import structured_qkv  # noqa: E402

FLAT = {"f32": 2e-5, "bf16": 1e-2, "f16": 2e-3}
#: Half the subnormal spacing of the output type: the absolute error of
#: rounding an output that small (f16 outputs below 6.1e-5 are subnormal,
#: and the relative bound alone fails there: 2.4e-8 on an output of 3.2e-6).
SUBNORMAL_HALF_ULP = {"f32": 2.0 ** -150, "bf16": 2.0 ** -134, "f16": 2.0 ** -25}
U32 = 2.0 ** -24


@dataclasses.dataclass
class AttentionProgram:
    name: str
    dtype: str
    out_dtype: str
    b: int
    h: int
    hkv: int
    nq: int
    nk: int
    d: int
    dv: int
    causal: bool
    window: int | None
    mask: str | None          # None, "additive", "bool"
    mask_elem: str | None     # f32, the input type, or i1
    mask_shape: tuple[int, int, int, int] | None
    masked: str
    lse: bool
    scale: float | None
    strategy: str | None
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    m: np.ndarray | None
    # The skip threshold: (kind, lambda or a per batch entry, per_batch,
    # (Qt, Kt), counts), or None.
    skip: tuple | None = None

    @property
    def shapes(self):
        return ((self.b, self.h, self.nq, self.d), (self.b, self.hkv, self.nk, self.d),
                (self.b, self.hkv, self.nk, self.dv), (self.b, self.h, self.nq, self.dv),
                (self.b, self.h, self.nq))

    def summary(self) -> str:
        parts = [f"attention {self.dtype}->{self.out_dtype}",
                 f"B={self.b} H={self.h} Hkv={self.hkv} Nq={self.nq} Nk={self.nk} "
                 f"D={self.d} Dv={self.dv}", f"masked={self.masked}"]
        if self.causal:
            parts.append("causal")
        if self.window is not None:
            parts.append(f"window={self.window}")
        if self.mask:
            parts.append(f"mask={self.mask}:{self.mask_elem}:{'x'.join(map(str, self.mask_shape))}")
        if self.lse:
            parts.append("lse")
        if self.scale is not None:
            parts.append(f"scale={self.scale!r}")
        if self.strategy:
            parts.append(f"strategy={self.strategy}")
        if self.skip:
            kind, lam, per_batch, tile, counts = self.skip
            parts.append(f"skip={kind}:{list(lam) if per_batch else lam[0]!r}:"
                         f"tile{list(tile)}" + (":counts" if counts else ""))
        return " ".join(parts)

    def _types(self):
        qs, ks, vs, os_, ls = self.shapes
        e = self.dtype
        ins = [ttype(qs, e), ttype(ks, e), ttype(vs, e)]
        if self.mask:
            ins.append(ttype(self.mask_shape, self.mask_elem))
        if self.skip:
            ins.append(ttype((self.b,), "f32") if self.skip[2] else "f32")
        outs = [ttype(os_, self.out_dtype)] + ([ttype(ls, "f32")] if self.lse else [])
        if self.skip and self.skip[4]:
            outs.append("tensor<2xi64>")
        return ins, outs

    def func_text(self) -> str:
        ins, outs = self._types()
        args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(ins))
        lines = [f"func.func @{self.name}({args}) -> ({', '.join(outs)}) {{"]
        for i, t in enumerate(outs):
            lines.append(f"  %e{i} = tensor.empty() : {t}")
        attrs = f"masked({self.masked})"
        if self.scale is not None:
            attrs += f" scale({self.scale!r})"
        if self.causal:
            attrs += " causal"
        if self.window is not None:
            attrs += f" window({self.window})"
        nin = len(ins)
        if self.skip:
            kind, _, _, tile, counts = self.skip
            nin -= 1
            attrs += f" skip({kind} %a{nin} : {ins[nin]}, tile [{tile[0]}, {tile[1]}])"
            if counts:
                attrs += f" skip_counts(%e{len(outs) - 1} : tensor<2xi64>)"
        if self.strategy:
            attrs += f" {{softmax.strategy = {self.strategy}}}"
        nout = len(outs) - (1 if self.skip and self.skip[4] else 0)
        res = ", ".join(f"%r{i}" for i in range(len(outs)))
        lines.append(f"  {res} = softmax.attention ins("
                     f"{', '.join(f'%a{i}' for i in range(nin))} : {', '.join(ins[:nin])}) "
                     f"outs({', '.join(f'%e{i}' for i in range(nout))} : "
                     f"{', '.join(outs[:nout])}) {attrs}")
        lines.append(f"  return {res} : {', '.join(outs)}")
        lines.append("}")
        return "\n".join(lines)

    def main_lines(self, tag: str) -> tuple[list[str], int]:
        ins, outs = self._types()
        vals = [(self.q, self.dtype), (self.k, self.dtype), (self.v, self.dtype)]
        if self.mask:
            vals.append((self.m, self.mask_elem))
        lines = []
        for i, ((a, e), t) in enumerate(zip(vals, ins)):
            lines.append(f"  %in{i}_{tag} = arith.constant {dense(a, e)} : {t}")
        if self.skip:
            lam = np.array(self.skip[1], dtype=np.float32)
            i = len(vals)
            if self.skip[2]:
                lines.append(f"  %in{i}_{tag} = arith.constant {dense(lam, 'f32')} : {ins[i]}")
            else:
                bits = lam[:1].view("<u4")[0]
                lines.append(f"  %in{i}_{tag} = arith.constant 0x{bits:08X} : f32")
        res = ", ".join(f"%r{i}_{tag}" for i in range(len(outs)))
        lines.append(f"  {res} = call @{self.name}("
                     f"{', '.join(f'%in{i}_{tag}' for i in range(len(ins)))}) : "
                     f"({', '.join(ins)}) -> ({', '.join(outs)})")
        _, _, _, os_, ls = self.shapes
        print_bits(lines, f"%r0_{tag}", os_, self.out_dtype, f"o{tag}")
        if self.lse:
            print_bits(lines, f"%r1_{tag}", ls, "f32", f"l{tag}")
        if self.skip and self.skip[4]:
            r = f"%r{len(outs) - 1}_{tag}"
            lines.append(f"  %cm_{tag} = bufferization.to_buffer {r} : tensor<2xi64> to memref<2xi64>")
            lines.append(f"  %cu_{tag} = memref.cast %cm_{tag} : memref<2xi64> to memref<*xi64>")
            lines.append(f"  call @printMemrefI64(%cu_{tag}) : (memref<*xi64>) -> ()")
        return lines, len(outs)

    def reference(self):
        g = self.h // self.hkv
        kk = np.repeat(self.k, g, axis=1)
        vv = np.repeat(self.v, g, axis=1)
        scale = self.scale if self.scale is not None else \
            float(np.float32(1.0 / np.sqrt(self.d)))
        s = np.einsum("bhid,bhjd->bhij", self.q, kk) * scale
        # The f32 rounding error of each score (see the module docstring).
        s_abs = np.einsum("bhid,bhjd->bhij", np.abs(self.q), np.abs(kk)) * abs(scale)
        i = np.arange(self.nq)[:, None] + (self.nk - self.nq)
        j = np.arange(self.nk)[None, :]
        allowed = np.ones((self.nq, self.nk), dtype=bool)
        if self.causal:
            allowed &= j <= i
        if self.window is not None:
            dist = i - j
            allowed &= (dist >= 0) & (dist < self.window) if self.causal \
                else np.abs(dist) < self.window
        s = np.where(allowed, s, -np.inf)
        if self.mask == "bool":
            s = np.where(self.m, s, -np.inf)
        elif self.mask == "additive":
            s = s + self.m
            s_abs = s_abs + np.where(np.isfinite(self.m), np.abs(self.m), 0.0)
        with np.errstate(all="ignore"):
            mx = s.max(axis=-1, keepdims=True) if self.nk else \
                np.full(s.shape[:-1] + (1,), -np.inf)
            full = np.isneginf(mx[..., 0])
            msafe = np.where(full[..., None], 0.0, mx)
            p = np.exp(s - msafe)
            l = p.sum(axis=-1)
            o = np.einsum("bhij,bhjd->bhid", p, vv) / l[..., None]
            # The f32 sum of p_j v_j: (Nk + 4) u sum_j p_j |v_j| at most.
            acc = (self.nk + 4) * U32 * (np.einsum("bhij,bhjd->bhid", p, np.abs(vv))
                                         / l[..., None]).max(axis=-1, initial=0.0)
            lse = msafe[..., 0] + np.log(l)
            vis = np.isfinite(s)
            ds = (self.d + 2) * U32 * np.max(np.where(vis, s_abs, 0.0), axis=-1,
                                             initial=0.0)
        self._scores, self._ds = s, ds
        return o, lse, full, ds, vv, acc

    def lambdas(self) -> np.ndarray:
        """lambda per batch entry (a / Nk for scale_factor)."""
        kind, lam, per_batch, _, _ = self.skip
        vals = np.array(lam if per_batch else lam * self.b, dtype=np.float32).astype(np.float64)
        if kind == "scale_factor":
            with np.errstate(divide="ignore", invalid="ignore"):
                vals = np.float32(vals) / np.float32(self.nk)
        return np.asarray(vals, dtype=np.float64)

    def skip_rule(self):
        """The op's rule in float64 on the reference's scores: (skipped and
        near-tie tiles per row, live pairs, skipped pairs, near-tie pairs)."""
        s, ds = self._scores, self._ds
        qt, kt = self.skip[3]
        b, h, nq = self.b, self.h, self.nq
        lam = self.lambdas()
        with np.errstate(divide="ignore", invalid="ignore"):
            ll = np.where((lam > 0) & (lam < 1), np.log(np.where(lam > 0, lam, 1.0)),
                          -np.inf)[:, None, None]
        nt = -(-nq // qt)
        pad = nt * qt - nq
        m = np.full((b, h, nq), -np.inf)
        nskip = np.zeros((b, h, nq))
        live = skipped = ties = 0

        def tiles(x, fill, red):
            x = np.concatenate([x, np.full((b, h, pad), fill)], axis=-1).reshape(b, h, nt, qt)
            return red(x, axis=-1)

        for k0 in range(0, self.nk, kt):
            tm = s[..., k0:k0 + kt].max(axis=-1)
            with np.errstate(invalid="ignore"):
                d = tm - m
                allow = np.isneginf(tm) | (d < ll)
                # The scores' f32 error (twice: the tile max and the
                # running max) can tip the test either way.
                near = ~np.isneginf(tm) & (np.abs(d - ll) <= 2 * ds + 1e-6)
            sees = ~np.isneginf(tm)
            ta, ts, tn = tiles(allow, True, np.all), tiles(sees, False, np.any), \
                tiles(near, False, np.any)
            live += int(ts.sum())
            skipped += int((ta & ts).sum())
            ties += int((tn & ts).sum())
            rows = lambda x: np.repeat(x, qt, axis=-1)[..., :nq]
            skip_rows = rows(ta)
            nskip += rows((ta | tn) & ts)
            m = np.where(skip_rows, m, np.maximum(m, tm))
        return nskip, live, skipped, ties

    def check(self, outs: list[np.ndarray], wrong_reference: bool = False) -> list[str]:
        o_ref, lse_ref, full, ds, vv, acc = self.reference()
        if wrong_reference:
            o_ref = o_ref * (1 + 1e-3) + 1e-3
            lse_ref = lse_ref + 1e-3
        o = outs[0].reshape(o_ref.shape)
        problems = []
        if full.any():
            got = o[full]
            ok = np.isnan(got).all() if self.masked == "nan" else (got == 0).all()
            if not ok:
                problems.append(f"rows seeing no key: output not "
                                f"{'NaN' if self.masked == 'nan' else '0'}")
        live = ~full
        flat = FLAT[self.out_dtype]
        # The stated cost of skipping (module docstring): e_i per row.
        e = np.zeros(full.shape)
        if self.skip:
            nskip, n_live, n_skipped, n_ties = self.skip_rule()
            lam = self.lambdas()
            lam = np.where((lam > 0) & (lam < 1), lam, 0.0)[:, None, None]
            e = np.minimum(nskip * self.skip[3][1] * lam, 1.0)  # 1: no bound
            if self.skip[4]:
                got_live, got_skipped = (int(x) for x in outs[-1].ravel())
                if got_live != n_live:
                    problems.append(f"skip counts: {got_live} live pairs, expected {n_live}")
                if abs(got_skipped - n_skipped) > n_ties:
                    problems.append(f"skip counts: {got_skipped} skipped, the float64 rule "
                                    f"skips {n_skipped} ({n_ties} near ties)")
        if live.any() and self.dv:
            with np.errstate(all="ignore"):
                vmax = np.abs(vv).max(axis=(-1, -2), initial=0.0)[..., None]
                diff = np.abs(o - o_ref).max(axis=-1)
                norm = np.abs(o_ref).max(axis=-1)
                bound = (flat * np.maximum(norm, 1e-30) + 2 * ds * vmax + acc
                         + SUBNORMAL_HALF_ULP[self.out_dtype] + 2 * e * vmax)
                bad = live & ~(diff <= bound)
            if bad.any():
                idx = tuple(np.argwhere(bad)[0])
                problems.append(f"output row {idx}: max |o - ref| {diff[idx]:.3e} > bound "
                                f"{bound[idx]:.3e} (max |ref| {norm[idx]:.3e}); "
                                f"{int(bad.sum())} rows failed")
        if self.lse:
            lse = outs[1].reshape(lse_ref.shape)
            if full.any():
                gl = lse[full]
                ok = np.isnan(gl).all() if self.masked == "nan" else np.isneginf(gl).all()
                if not ok:
                    problems.append(f"rows seeing no key: lse not "
                                    f"{'NaN' if self.masked == 'nan' else '-inf'}")
            if live.any():
                with np.errstate(all="ignore"):
                    le = np.abs(lse - lse_ref)
                    bound = FLAT["f32"] * np.maximum(1.0, np.abs(lse_ref)) + ds - np.log1p(-e)
                    bad = live & ~(le <= bound)
                if bad.any():
                    idx = tuple(np.argwhere(bad)[0])
                    problems.append(f"lse {idx}: got {lse[idx]!r} expected {lse_ref[idx]!r} "
                                    f"(bound {bound[idx]:.3e}); {int(bad.sum())} failed")
        return problems


def _round(a: np.ndarray, dtype: str) -> np.ndarray:
    return quantize(a, dtype)[0].reshape(a.shape)


def draw(rng: np.random.Generator, name: str) -> AttentionProgram:
    c = rng.choice
    dtype = str(c(["f32", "f32", "bf16", "f16"]))
    out_dtype = dtype if rng.random() < 0.4 else "f32"
    hkv = int(c([1, 1, 2, 3]))
    h = hkv * int(c([1, 1, 2, 3, 4]))
    b = int(c([0, 1, 1, 1, 2, 3])) if rng.random() < 0.9 else 1
    if b == 0 and rng.random() < 0.7:
        b = 1
    lens = [0, 1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 31, 33, 40]
    nq, nk = int(c(lens)), int(c(lens))
    if rng.random() < 0.3:
        nk = nq
    dims = [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 24, 32, 33, 40, 64]
    d = int(c(dims))
    dv = d if rng.random() < 0.5 else int(c(dims))
    for _ in range(4):  # keep a program's work small
        if b * h * nq * nk * max(d, dv, 1) <= 200000:
            break
        nq, nk = max(1, nq // 2), max(1, nk // 2)
    causal = bool(rng.random() < 0.35)
    window = int(rng.integers(1, max(nk, 1) + 3)) if rng.random() < 0.25 else None
    mask, mask_elem, mask_shape = None, None, None
    if rng.random() < 0.35:
        mask = str(c(["additive", "bool"]))
        mask_elem = "i1" if mask == "bool" else str(c(["f32", dtype]))
        mask_shape = (b if rng.random() < 0.6 else 1, h if rng.random() < 0.6 else 1, nq, nk)
    masked = str(c(["zero", "nan"]))
    lse = bool(rng.random() < 0.5)
    # An explicit scale is needed with D = 0; large logits need scale 1.
    big = rng.random() < 0.15
    if big:
        scale = 1.0
    elif d == 0 or rng.random() < 0.2:
        scale = float(np.float32(rng.choice([0.125, 0.3, 1.0, 2.5])))
    else:
        scale = None
    strategy = None
    if rng.random() < 0.25:
        w = int(c([1, 2, 4, 8, 16, 32, 64]))
        strategy = (f"#softmax.attention_cpu_strategy<vector_width = {w}"
                    + (f", keys_per_block = {w}" if rng.random() < 0.3 else "") + ">")
    qs, ks, vs = (b, h, nq, d), (b, hkv, nk, d), (b, hkv, nk, dv)
    qmag = 1.0
    if big:
        # Scores of order 1e3..1e4 (f16: inputs stay below its 65504).
        qmag = float(c([30.0, 300.0, 3000.0])) if dtype != "f16" else 30.0
    q = _round(rng.standard_normal(qs) * qmag, dtype)
    k = _round(rng.standard_normal(ks) * (3.0 if big and dtype != "f16" else 1.0), dtype)
    v = _round(rng.standard_normal(vs) * float(c([1.0, 1.0, 100.0, 1e-3])), dtype)
    m = None
    if mask == "additive":
        m = rng.standard_normal(mask_shape) * float(c([1.0, 10.0]))
        m[rng.random(mask_shape) < 0.3] = -np.inf
        if nq and rng.random() < 0.5:  # a fully hidden row
            m[..., int(rng.integers(nq)), :] = -np.inf
        m = _round(m, mask_elem)
    elif mask == "bool":
        m = rng.random(mask_shape) < float(c([0.3, 0.7, 0.95]))
        if nq and rng.random() < 0.5:
            m[..., int(rng.integers(nq)), :] = False
    # Drawn last, so the rest of the program is what the same stream drew
    # before the skip existed. The tile is [1, W] on the vector path
    # (diff_soak.py sets W).
    skip = None
    if rng.random() < 0.2:
        kind = str(c(["lambda", "lambda", "scale_factor"]))
        pool = [0.0, 1e-4, 1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0, float("nan")]
        if kind == "scale_factor":
            pool = [0.0, 0.1, 1.0, 3.0, 100.0, float("nan")]
        per_batch = bool(rng.random() < 0.3)
        lam = tuple(float(c(pool)) for _ in range(b if per_batch else 1))
        tile = (int(c([1, 1, 2, 3, 16])), int(c([1, 2, 4, 8, 16, 64])))
        skip = (kind, lam, per_batch, tile, bool(rng.random() < 0.6))
        # Gaussian scores rarely leave a tile behind: half of these programs
        # take peaked queries and keys (python/softmax_mlir/structured.py).
        if d >= 11 and rng.random() < 0.5:
            sq, sk, _ = structured_qkv(rng, b, h, hkv, nq, nk, d, dv,
                                       peak=float(c([4.0, 8.0])))
            q, k = _round(sq.astype(np.float64), dtype), _round(sk.astype(np.float64), dtype)
            # ... and a lambda that skips.
            skip = ("lambda", tuple(float(c([1e-3, 1e-2, 0.1, 0.3])) for _ in lam),
                    per_batch, tile, skip[4])
    return AttentionProgram(name, dtype, out_dtype, b, h, hkv, nq, nk, d, dv, causal, window,
                            mask, mask_elem, mask_shape, masked, lse, scale, strategy,
                            q, k, v, m, skip)
