#!/usr/bin/env python3
"""The skip machinery's cost with nothing skipped, for compiler variants
side by side in one process: each --libs entry is a kernel library built
by bench/gpu/build_attention.py --wgmma from one version of the lowering.
Per N (B 1, H 32, d 128, structured inputs, causal and/or not) and per
round, every library's dense kernel (attention_wg_d128[_causal]) and its
skip kernels (--kernels suffixes of attention_skip_d128[_causal]) at
lambda 1e-30 are timed in turn; the report gives each skip kernel's speed
as a fraction of its own library's dense kernel (median over rounds) and
fails when a skip kernel skipped a tile or left the dense output.

Usage (on the GPU machine):
    python3 bench/blasst/overhead_ab.py --libs base=DIR_A,vote=DIR_B \\
        --kernels _wg_wk,_wg_wk_nc --json F --md F
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_skip_gpu import Ours, median_ms, structured  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--libs", required=True, help="label=dir,...")
    ap.add_argument("--kernels", default="_wg_wk,_wg_wk_nc")
    ap.add_argument("--lens", default="16384,32768,65536")
    ap.add_argument("--causal", default="1", help="1, 0 or 1,0")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--peak", type=float, default=12.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    args = ap.parse_args()
    libs = [(lab, Ours(Path(d))) for lab, d in (x.split("=") for x in args.libs.split(","))]
    kernels = args.kernels.split(",")
    rows, failed = [], 0
    for n in (int(x) for x in args.lens.split(",")):
        q, k, v = structured(1, 32, 32, n, 128, args.peak, 7 + n)
        for causal in (c == "1" for c in args.causal.split(",")):
            tail = "_causal" if causal else ""
            o = torch.empty_like(q)
            lam = torch.tensor([1e-30], device="cuda", dtype=torch.float32)
            counts = torch.zeros(2, device="cuda", dtype=torch.int64)
            times: dict = {}
            for _ in range(args.rounds):
                for lab, lib in libs:
                    call, _ = lib.fn(q, k, v, o, causal, prefix="attention_wg")
                    times.setdefault((lab, "dense"), []).append(median_ms(call, args.reps))
                    lib.check_error()
                    dense = o.clone()
                    for s in kernels:
                        name = f"attention_skip_d128{tail}{s}"
                        extra = () if s.endswith("_nc") else (counts,)
                        call, _ = lib.call(name, q, k, v, lam, o, *extra)
                        counts.zero_()
                        o.fill_(float("nan"))
                        call()
                        torch.cuda.synchronize()
                        lib.check_error()
                        err = float((o.float() - dense.float()).abs().max())
                        if (extra and counts[1].item() != 0) or not err < 2e-2:
                            print(f"FAIL {lab} {name} N {n}: skipped "
                                  f"{counts[1].item()}, max diff {err}")
                            failed += 1
                        times.setdefault((lab, s), []).append(median_ms(call, args.reps))
                        lib.check_error()
            for lab, _ in libs:
                d = statistics.median(times[(lab, "dense")])
                for s in kernels:
                    t = statistics.median(times[(lab, s)])
                    rows.append({"lib": lab, "kernel": s, "N": n, "causal": causal,
                                 "dense_ms": d, "ms": t, "vs_dense": d / t,
                                 "dense_all": times[(lab, "dense")],
                                 "all": times[(lab, s)]})
                    print(json.dumps(rows[-1]), flush=True)
    lines = ["| lib | kernel | N | causal | dense ms | skip ms (lambda 1e-30) | vs dense |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['lib']} | {r['kernel']} | {r['N']} | {r['causal']} | "
              f"{r['dense_ms']:.3f} | {r['ms']:.3f} | {r['vs_dense']:.3f}x |" for r in rows]
    print("\n".join(lines))
    out = {"rows": rows, "device": torch.cuda.get_device_name(), "command": " ".join(sys.argv),
           "date": time.strftime("%Y-%m-%d")}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    if args.md:
        Path(args.md).write_text("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
