#!/usr/bin/env python3
"""Builds of the linear cross-entropy forward timed in one process.

    python3 bench/gpu/ce_forward_ab.py --lib old=build-gpu/ce_old --lib new=build-gpu/ce_new --out DIR
        [--kernels ce_bf16_16_4096_128256_sm90a,...]

Each library comes from `bench_cross_entropy.py build` (the default
kernels are the four benchmark shapes' sm_90a builds, names ending in
_sm90a). For each kernel every library's build and the cuBLAS matmul
h @ W.T are timed in `--rounds` interleaved rounds (triton.testing.do_bench
medians), so that clock and thermal drift fall on all alike; each loss is
checked against float64 torch. Results: DIR/ce_forward_ab.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aot  # noqa: E402
from bench_cross_entropy import BENCH, KERNELS, WGMMA, inputs  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--a", help="same as --lib a=DIR")
    ap.add_argument("--b", help="same as --lib b=DIR")
    ap.add_argument("--kernels", default=",".join(n + WGMMA for n in BENCH[:4]))
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=100)
    args = ap.parse_args()
    specs = args.lib + [f"{k}={v}" for k, v in (("a", args.a), ("b", args.b)) if v]
    if len(specs) < 1:
        ap.error("give at least one --lib")
    import torch
    import triton.testing
    libs = {s.split("=", 1)[0]: aot.Library(Path(s.split("=", 1)[1]), "softmax_ce")
            for s in specs}
    rows = []
    for name in args.kernels.split(","):
        spec = KERNELS[name.removesuffix(WGMMA)]
        _, n, d, v, red, _, cap, zl, _, with_lse = spec
        if cap or zl:
            ap.error(f"{name}: softcap and z-loss are not modelled by this check")
        h, w, t, bias = inputs(spec, n, 11, "cuda")
        calls, losses, keep_alive = {}, {}, []
        for k, lib in libs.items():
            losses[k] = torch.empty((n,) if red == "none" else (), device="cuda")
            args_k = [h, w, t] + ([bias] if bias is not None else []) + [losses[k]]
            if with_lse:
                args_k.append(torch.empty(n, device="cuda"))
            keep_alive.append(args_k)
            calls[k], _ = lib.call(name, *args_k)
            calls[k]()
            torch.cuda.synchronize()
            lib.check_error()
        keep = t != -100
        # float64 losses of every token, 512 at a time.
        valid = keep & (t < v)
        parts, wd = [], w.double()
        for i in range(0, n, 512):
            z = h[i:i + 512].double() @ wd.T
            if bias is not None:
                z += bias.double()
            picked = z.gather(1, t[i:i + 512].clamp(0, v - 1).long()[:, None]).squeeze(1)
            parts.append(torch.logsumexp(z, 1) - picked)
        ref = torch.cat(parts)
        del z, wd
        times = {k: [] for k in [*libs, "matmul"]}
        for _ in range(args.rounds):
            for k in libs:
                times[k].append(triton.testing.do_bench(calls[k], warmup=10, rep=args.reps,
                                                        return_mode="median"))
            times["matmul"].append(triton.testing.do_bench(lambda: h @ w.T, warmup=10,
                                                           rep=args.reps, return_mode="median"))
        for lib in libs.values():
            lib.check_error()
        errs = {}
        for k in libs:
            if red == "none":
                got = losses[k].double()
                errs[k] = ((got[valid] - ref[valid]).abs().max()
                           / ref[valid].abs().max()).item()
            else:
                r = ref[valid]
                want = r.mean() if red == "mean" else r.sum()
                errs[k] = abs(losses[k].item() - want.item()) / abs(want.item())
        med = {k: statistics.median(x) for k, x in times.items()}
        row = {"kernel": name, "N": n, "D": d, "V": v, "reduction": red,
               "kept_tokens": int(keep.sum()), "rel_err": errs, "ms": med, "rounds": times,
               "over_matmul": {k: med[k] / med["matmul"] for k in libs}}
        print(json.dumps(row), flush=True)
        rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"device": torch.cuda.get_device_name(), "libs": specs,
              "rounds": args.rounds, "rows": rows}
    (out / "ce_forward_ab.json").write_text(json.dumps(result, indent=1))
    first = next(iter(libs))
    lines = [f"# CE forward builds on {result['device']}: " + ", ".join(specs), "",
             "| N | D | V | " + " | ".join(f"{k} ms" for k in libs) + " | matmul ms | "
             + " | ".join(f"{k} / matmul" for k in libs) + " | "
             + " | ".join(f"{k} / {first}" for k in list(libs)[1:]) + " | loss err |",
             "|---" * (4 + 3 * len(libs)) + "|"]
    for r in rows:
        ms = r["ms"]
        lines.append(f"| {r['N']} | {r['D']} | {r['V']} | "
                     + " | ".join(f"{ms[k]:.3f}" for k in libs) + f" | {ms['matmul']:.3f} | "
                     + " | ".join(f"{r['over_matmul'][k]:.3f}" for k in libs) + " | "
                     + " | ".join(f"{ms[k] / ms[first]:.3f}" for k in list(libs)[1:]) + " | "
                     + ", ".join(f"{e:.1e}" for e in r["rel_err"].values()) + " |")
    (out / "ce_forward_ab.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
