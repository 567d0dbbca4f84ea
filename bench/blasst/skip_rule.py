"""softmax.attention's skip rule (docs/Attention.md, "Skipping key tiles")
emulated in float64 with torch, for one (batch, head): the reference the
GPU benchmark and the capture statistics measure against.
"""

from __future__ import annotations

import math

import torch


def split_ranges(nk: int, nq: int, splits: int, causal: bool):
    """The key ranges [start, end) of the splits of a split-KV kernel:
    getAttentionKeySplitRange (Transforms.h), splits of max(ceil(Nk / S),
    Nq - 1 under causal) keys counted back from the last key."""
    size = max(-(-nk // splits), nq - 1 if causal else 0)
    return [(max(nk - (splits - s) * size, 0), max(nk - (splits - 1 - s) * size, 0))
            for s in range(splits)]


def emulate(q, k, v, causal: bool, lam: float, qt: int, kt: int, start: int = 0,
            splits: int = 1):
    """Query rows [start, Nq) of q [Nq, d] against k [Nk, d], v [Nk, dv]
    (start a multiple of qt, so the query tiles are the op's), key tiles of
    kt from key 0, causal bottom-right. With `splits`, each split of the
    keys (split_ranges) folds its own tiles from its first key from the
    identity state, and the splits' states merge. Returns (dense output,
    skip output, live pairs, skipped pairs, the most tiles skipped for one
    row that sees them); fully masked rows are 0."""
    nq, nk, d = q.shape[0], k.shape[0], q.shape[1]
    s = (q[start:].double() @ k.double().T) / math.sqrt(d)
    rows = nq - start
    if causal:
        i = torch.arange(start, nq, device=s.device)[:, None] + (nk - nq)
        j = torch.arange(nk, device=s.device)[None, :]
        s = s.masked_fill(j > i, float("-inf"))
    vv = v.double()
    dense = torch.softmax(s, -1).nan_to_num(0.0) @ vv
    loglam = math.log(lam) if 0 < lam < 1 else float("-inf")

    def identity():
        return (torch.full((rows,), float("-inf"), device=s.device, dtype=torch.float64),
                torch.zeros(rows, device=s.device, dtype=torch.float64),
                torch.zeros(rows, vv.shape[1], device=s.device, dtype=torch.float64))
    nt = -(-rows // qt)
    pad = nt * qt - rows
    skips = torch.zeros(rows, device=s.device, dtype=torch.float64)
    live = skipped = 0
    M, L, O = identity()
    for lo, hi in split_ranges(nk, nq, splits, causal):
        m, l, o = identity()
        for k0 in range(lo, hi, kt):
            st = s[:, k0:min(k0 + kt, hi)]
            tm = st.max(-1).values
            allow = torch.isneginf(tm) | ((tm - m) < loglam)
            sees = ~torch.isneginf(tm)
            ta = torch.cat([allow, allow.new_ones(pad)]).view(nt, qt).all(-1)
            ts = torch.cat([sees, sees.new_zeros(pad)]).view(nt, qt).any(-1)
            live += int(ts.sum())
            skipped += int((ta & ts).sum())
            skip = ta.repeat_interleave(qt)[:rows]
            skips += (skip & sees).double()
            mn = torch.maximum(m, tm)
            ms = torch.where(torch.isneginf(mn), torch.zeros_like(mn), mn)
            a = torch.where(torch.isneginf(m), torch.zeros_like(m), torch.exp(m - ms))
            p = torch.exp(st - ms[:, None])
            ln, on = l * a + p.sum(-1), o * a[:, None] + p @ vv[k0:min(k0 + kt, hi)]
            m = torch.where(skip, m, mn)
            l = torch.where(skip, l, ln)
            o = torch.where(skip[:, None], o, on)
        # The split's state joins the others': the merge of two states.
        mn = torch.maximum(M, m)
        ms = torch.where(torch.isneginf(mn), torch.zeros_like(mn), mn)
        a1 = torch.where(torch.isneginf(M), torch.zeros_like(M), torch.exp(M - ms))
        a2 = torch.where(torch.isneginf(m), torch.zeros_like(m), torch.exp(m - ms))
        M, L, O = mn, L * a1 + l * a2, O * a1[:, None] + o * a2[:, None]
    out = (O / L[:, None]).nan_to_num(0.0)
    most = int(skips.max()) if rows else 0
    return dense, out, live, skipped, most


def emulate_rows(q, k, v, causal: bool, lam, kt: int = 64, splits: int = 1,
                 group: int = 1):
    """The rule for query tiles of one row each (tile [1, Kt], or one query
    row per head), every (batch, head) at once: q [B, H, Nq, d], k and v
    [B, Hkv, Nk, d], lam one lambda per batch entry. `group` query heads
    share a warp (GQA packing): the warp skips a tile's V and P V only when
    every row of its group of heads does. Returns (dense output, skip
    output [B, H, Nq, dv], live row pairs, skipped row pairs, the fraction
    of (warp, tile) pairs whose V was not needed, the largest tile count
    skipped for one row)."""
    b, h, nq, d = q.shape
    hkv, nk = k.shape[1], k.shape[2]
    rep = h // hkv
    kd = k.double().repeat_interleave(rep, 1)
    vd = v.double().repeat_interleave(rep, 1)
    s = (q.double() @ kd.transpose(-1, -2)) / math.sqrt(d)
    if causal:
        i = torch.arange(nq, device=s.device)[:, None] + (nk - nq)
        j = torch.arange(nk, device=s.device)[None, :]
        s = s.masked_fill(j > i, float("-inf"))
    dense = torch.softmax(s, -1).nan_to_num(0.0) @ vd
    lam = torch.as_tensor(lam, dtype=torch.float64, device=s.device).reshape(b)
    on = (lam > 0) & (lam < 1)
    loglam = torch.where(on, lam.clamp(1e-300, 1).log(),
                         torch.full_like(lam, float("-inf")))[:, None, None]
    shape = (b, h, nq)
    neg = torch.full(shape, float("-inf"), device=s.device, dtype=torch.float64)
    M, L, O = neg.clone(), torch.zeros(shape, device=s.device, dtype=torch.float64), \
        torch.zeros(b, h, nq, vd.shape[-1], device=s.device, dtype=torch.float64)
    live = skipped = warp_pairs = warp_skips = 0
    most = torch.zeros(shape, device=s.device, dtype=torch.float64)
    for lo, hi in split_ranges(nk, nq, splits, causal):
        m, l = neg.clone(), torch.zeros_like(L)
        o = torch.zeros_like(O)
        for k0 in range(lo, hi, kt):
            st = s[..., k0:min(k0 + kt, hi)]
            tm = st.max(-1).values
            sees = ~torch.isneginf(tm)
            allow = ~sees | ((tm - m) < loglam)
            live += int(sees.sum())
            skipped += int((allow & sees).sum())
            most += (allow & sees).double()
            # A warp's rows: `group` heads times Nq rows of one KV head.
            ws = sees.view(b, h // group, group * nq).any(-1)
            wa = allow.view(b, h // group, group * nq).all(-1)
            warp_pairs += int(ws.sum())
            warp_skips += int((ws & wa).sum())
            mn = torch.maximum(m, tm)
            ms = torch.where(torch.isneginf(mn), torch.zeros_like(mn), mn)
            a = torch.where(torch.isneginf(m), torch.zeros_like(m), torch.exp(m - ms))
            p = torch.exp(st - ms[..., None])
            ln = l * a + p.sum(-1)
            on_ = o * a[..., None] + p @ vd[:, :, k0:min(k0 + kt, hi)]
            m = torch.where(allow, m, mn)
            l = torch.where(allow, l, ln)
            o = torch.where(allow[..., None], o, on_)
        mn = torch.maximum(M, m)
        ms = torch.where(torch.isneginf(mn), torch.zeros_like(mn), mn)
        a1 = torch.where(torch.isneginf(M), torch.zeros_like(M), torch.exp(M - ms))
        a2 = torch.where(torch.isneginf(m), torch.zeros_like(m), torch.exp(m - ms))
        M, L, O = mn, L * a1 + l * a2, O * a1[..., None] + o * a2[..., None]
    out = (O / L[..., None]).nan_to_num(0.0)
    return (dense, out, live, skipped, warp_skips / max(warp_pairs, 1),
            int(most.max()) if most.numel() else 0)
