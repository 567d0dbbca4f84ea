#!/usr/bin/env python3
"""Runs one kernel of libsoftmax_decode.so a few times on fresh inputs, for
a profiler (ncu) to look at:

    ncu --clock-control none --launch-skip 2 --launch-count 1 \\
        python3 bench/gpu/decode_one.py --lib-dir build-gpu/decode b8_h32_kv8_l32768__auto
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> int:
    import torch
    from bench_attention import memref
    from bench_decode import SHAPES, load_library

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--sdpa", choices=["cudnn", "flash"],
                    help="run SDPA's backend on the kernel's shape instead")
    ap.add_argument("kernel", help="<shape>__<variant>, as in plans.json")
    args = ap.parse_args()
    rt, lib, _ = load_library(Path(args.lib_dir), "decode")
    b, h, hkv, nq, nk, d, _ = SHAPES[args.kernel.split("__")[0]]
    torch.manual_seed(0)
    q = torch.randn(b, h, nq, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, hkv, nk, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, hkv, nk, d, device="cuda", dtype=torch.bfloat16)
    o = torch.empty_like(q)
    if args.sdpa:
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = {"cudnn": SDPBackend.CUDNN_ATTENTION,
                   "flash": SDPBackend.FLASH_ATTENTION}[args.sdpa]
        with sdpa_kernel(backend):
            for _ in range(args.calls):
                F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    else:
        descs = [memref(t) for t in (q, k, v, o)]
        f = getattr(lib, f"_mlir_ciface_{args.kernel}")
        for _ in range(args.calls):
            f(*[ctypes.byref(x) for x in descs])
    torch.cuda.synchronize()
    if rt.softmaxRuntimeGetLastError():
        raise RuntimeError(rt.softmaxRuntimeGetLastErrorString().decode())
    print("ok", args.kernel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
