#!/usr/bin/env python3
"""Per-call time of the decode kernels three ways, one process (H200):
triton.testing.do_bench (an L2 flush before each call, events around it),
20 calls back to back between two events, and the profiler's span from a
call's first launch to the end of its last; SDPA cuDNN the same three
ways. Tells the kernels' own time from what a call adds around them.

    python3 bench/gpu/decode_overhead.py --lib-dir build-gpu/decode   # H200
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> int:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import triton.testing
    from bench_attention import memref
    from bench_decode import SHAPES, load_library
    from kernel_profile import kernel_times

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    rt, lib, _ = load_library(Path(args.lib_dir), "decode")
    results = {}
    for name in ("b8_h32_kv8_l32768", "b1_h32_kv8_l131072"):
        b, h, hkv, nq, nk, d, _ = SHAPES[name]
        q = torch.randn(b, h, nq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, hkv, nk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, hkv, nk, d, device="cuda", dtype=torch.bfloat16)
        o = torch.empty_like(q)
        descs = [memref(t) for t in (q, k, v, o)]
        ptrs = [ctypes.byref(x) for x in descs]
        f = getattr(lib, f"_mlir_ciface_{name}__auto")
        ours = lambda: f(*ptrs)

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

        kv = b * hkv * nk * 2 * d * 2
        for label, go in (("ours", ours), ("cudnn", cudnn)):
            go()
            torch.cuda.synchronize()
            bench = triton.testing.do_bench(go, rep=100) * 1e3
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(20):
                go()
            e.record()
            torch.cuda.synchronize()
            loop = s.elapsed_time(e) * 1e3 / 20
            prof = kernel_times(go)
            r = {"do_bench_us": bench, "back_to_back_us": loop, "span_us": prof["span"],
                 "kernels_us": {k: v for k, v in prof.items() if k != "span"},
                 "gbs_do_bench": kv / bench / 1e3, "gbs_back_to_back": kv / loop / 1e3}
            results[f"{name}/{label}"] = r
            print(name, label, json.dumps(r), flush=True)
    Path(args.out, "decode_overhead.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
