#!/usr/bin/env python3
"""Runs one prefill kernel of libsoftmax_attention.so (build_attention.py
--skip --wgmma) a few times on the structured inputs of bench_skip_gpu.py
(B 1, H 32, d 128, peak 12), for a profiler (ncu) to look at. A kernel
name with "skip" in it takes --lam (one lambda for the batch) and the
counts (a *_nc one only the lambda); the others are dense.

    ncu --clock-control none -k regex:attention --launch-skip 2 --launch-count 1 \\
        python3 bench/blasst/skip_one.py --lib-dir build-gpu/attention \\
        --n 16384 --lam 1e-2 attention_skip_d128_wg64
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "bench" / "gpu"))
sys.path.insert(0, str(HERE.parents[1] / "python"))


def main() -> int:
    import torch
    from bench_attention import Ours
    from bench_skip_gpu import structured

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--lam", type=float, default=1e-2)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("kernel", help="e.g. attention_skip_d128_causal_wg64, attention_wg_d128")
    args = ap.parse_args()
    ours = Ours(Path(args.lib_dir))
    q, k, v = structured(1, 32, 32, args.n, 128, 12.0, 7 + args.n)
    o = torch.empty_like(q)
    if "skip" in args.kernel:
        lam = torch.tensor([args.lam], device="cuda", dtype=torch.float32)
        counts = torch.zeros(2, device="cuda", dtype=torch.int64)
        # A *_nc kernel takes no counts operand.
        nc = args.kernel.endswith("_nc")
        call, _ = ours.call(args.kernel, q, k, v, lam, o, *([] if nc else [counts]))
    else:
        call, _ = ours.call(args.kernel, q, k, v, o)
    for _ in range(args.calls):
        call()
    torch.cuda.synchronize()
    ours.check_error()
    if "skip" in args.kernel and not args.kernel.endswith("_nc"):
        live, skipped = counts.tolist()
        print(f"{args.kernel} lambda {args.lam}: {skipped} of {live} tiles skipped "
              f"({skipped / max(live, 1):.3f}, {args.calls} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
