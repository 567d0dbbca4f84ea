#!/usr/bin/env python3
"""How much of the tile sparsity a GPU block can use: the skip rule
(docs/Attention.md, "Skipping key tiles") in float64 on the structured
inputs of bench_skip_gpu.py, at warp tiles (one warp's rows by 64 keys)
and at the block tiles that hold those warps.

A block goes through the key tiles in step (one barrier per tile), so a
key tile costs it less only when every warp skips it. Per query block this
prints the warp-tile sparsity (what a kernel voting per warp counts), the
block-tile sparsity (tiles every warp of the block skips, each warp
deciding on its own rows as the warp-tile kernel does), and the folded
fraction of a lockstep block (1 - block sparsity) against that of warps
that could drift apart (the busiest warp's folded tiles).

Usage (numpy; minutes at 16k, ~7 min a head at 64k with --stride 1):
    python3 bench/blasst/block_sparsity.py --n 16384 --peak 12 --lam 1e-3 \\
        [--causal] [--heads 2] [--rows 32] [--warps 4] [--stride 1]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from softmax_mlir.structured import structured_qkv  # noqa: E402

KT = 64


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--peak", type=float, default=12.0)
    ap.add_argument("--lam", type=float, default=1e-3)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--rows", type=int, default=32, help="query rows per warp")
    ap.add_argument("--warps", type=int, default=4, help="warps per block")
    ap.add_argument("--stride", type=int, default=1,
                    help="every stride-th query block only (a sample)")
    args = ap.parse_args()
    n, wr, wpb = args.n, args.rows, args.warps
    # bench_skip_gpu.py's generator and seed (its first heads).
    q, k, _ = structured_qkv(np.random.default_rng(7 + n), 1, args.heads, args.heads,
                             n, n, 128, 128, peak=args.peak, topics=32)
    loglam = math.log(args.lam)
    nt = n // KT
    warp_live = warp_skip = blk_live = blk_skip = lock = drift = 0
    for h in range(args.heads):
        qh, kh = q[0, h].astype(np.float64), k[0, h].astype(np.float64)
        for b0 in range(0, n, wr * wpb * args.stride):
            s = (qh[b0:b0 + wr * wpb] @ kh.T) / math.sqrt(128)
            rows = s.shape[0]
            if args.causal:
                s = np.where(np.arange(n)[None, :] > np.arange(b0, b0 + rows)[:, None],
                             -np.inf, s)
            tmax = s.reshape(rows, nt, KT).max(-1)
            m = np.full(rows, -np.inf)
            skip = np.zeros((wpb, nt), bool)
            seen = np.zeros((wpb, nt), bool)
            for t in range(nt):
                allow = np.isneginf(tmax[:, t]) | ((tmax[:, t] - m) < loglam)
                sees = ~np.isneginf(tmax[:, t])
                a = allow.reshape(wpb, wr).all(1)
                seen[:, t] = sees.reshape(wpb, wr).any(1)
                skip[:, t] = a & seen[:, t]
                m = np.where(np.repeat(~a, wr), np.maximum(m, tmax[:, t]), m)
            warp_live += int(seen.sum())
            warp_skip += int(skip.sum())
            live = seen.any(0)
            blk_live += int(live.sum())
            blk_skip += int((live & (skip | ~seen).all(0)).sum())
            folded = seen & ~skip
            lock += int(folded.any(0).sum())
            drift += int(folded.sum(1).max())
    out = {"N": n, "peak": args.peak, "lambda": args.lam, "causal": args.causal,
           "heads": args.heads, "stride": args.stride, "warp_tile": [wr, KT],
           "block_tile": [wr * wpb, KT],
           "warp_sparsity": warp_skip / warp_live,
           "block_sparsity": blk_skip / blk_live,
           "lockstep_folded": lock / blk_live, "drifting_folded": drift / blk_live}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
