"""softmax.attention's skip rule (docs/Attention.md, "Skipping key tiles")
emulated in float64 with torch, for one (batch, head): the reference the
GPU benchmark and the capture statistics measure against.
"""

from __future__ import annotations

import math

import torch


def emulate(q, k, v, causal: bool, lam: float, qt: int, kt: int, start: int = 0):
    """Query rows [start, Nq) of q [Nq, d] against k [Nk, d], v [Nk, dv]
    (start a multiple of qt, so the query tiles are the op's), key tiles of
    kt from key 0, causal bottom-right. Returns (dense output, skip output,
    live pairs, skipped pairs, the most tiles skipped for one row that sees
    them); fully masked rows are 0."""
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
    m = torch.full((rows,), float("-inf"), device=s.device, dtype=torch.float64)
    l = torch.zeros(rows, device=s.device, dtype=torch.float64)
    o = torch.zeros(rows, vv.shape[1], device=s.device, dtype=torch.float64)
    nt = -(-rows // qt)
    pad = nt * qt - rows
    skips = torch.zeros(rows, device=s.device, dtype=torch.float64)
    live = skipped = 0
    for k0 in range(0, nk, kt):
        st = s[:, k0:k0 + kt]
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
        ln, on = l * a + p.sum(-1), o * a[:, None] + p @ vv[k0:k0 + kt]
        m = torch.where(skip, m, mn)
        l = torch.where(skip, l, ln)
        o = torch.where(skip[:, None], o, on)
    out = (o / l[:, None]).nan_to_num(0.0)
    most = int(skips.max()) if rows else 0
    return dense, out, live, skipped, most
