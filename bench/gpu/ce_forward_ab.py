#!/usr/bin/env python3
"""Two builds of the linear cross-entropy forward timed in one process.

    python3 bench/gpu/ce_forward_ab.py --a build-gpu/ce_old --b build-gpu/ce_new --out DIR

Each library comes from `bench_cross_entropy.py build` (the sm_90a
kernels, names ending in _wgmma). For each benchmark shape both kernels and
the cuBLAS matmul h @ W.T are timed in `--rounds` interleaved rounds
(triton.testing.do_bench medians), so that clock and thermal drift fall on
both alike; the loss of each is checked against the other and against
float64 torch on the first 512 tokens. Results: DIR/ce_forward_ab.{json,md}.
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
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=100)
    args = ap.parse_args()
    import torch
    import triton.testing
    libs = {"a": aot.Library(Path(args.a), "softmax_ce"),
            "b": aot.Library(Path(args.b), "softmax_ce")}
    names = [n + WGMMA for n in BENCH[:4]]
    rows = []
    for name in names:
        spec = KERNELS[name.removesuffix(WGMMA)]
        _, n, d, v, *_ = spec
        h, w, t, _ = inputs(spec, n, 11, "cuda")
        calls, losses = {}, {}
        for k, lib in libs.items():
            losses[k] = torch.empty((), device="cuda")
            calls[k], _ = lib.call(name, h, w, t, losses[k])
            calls[k]()
            torch.cuda.synchronize()
            lib.check_error()
        keep = t != -100
        ref = torch.nn.functional.cross_entropy(h.double() @ w.double().T, t).item()
        times = {"a": [], "b": [], "matmul": []}
        for _ in range(args.rounds):
            for k in ("a", "b"):
                times[k].append(triton.testing.do_bench(calls[k], warmup=10, rep=args.reps,
                                                        return_mode="median"))
            times["matmul"].append(triton.testing.do_bench(lambda: h @ w.T, warmup=10,
                                                           rep=args.reps, return_mode="median"))
        for lib in libs.values():
            lib.check_error()
        med = {k: statistics.median(x) for k, x in times.items()}
        row = {"kernel": name, "N": n, "D": d, "V": v, "kept_tokens": int(keep.sum()),
               "loss_a": losses["a"].item(), "loss_b": losses["b"].item(), "loss_f64": ref,
               "rel_err_a": abs(losses["a"].item() - ref) / abs(ref),
               "rel_err_b": abs(losses["b"].item() - ref) / abs(ref),
               "ms": med, "rounds": times,
               "a_over_matmul": med["a"] / med["matmul"], "b_over_matmul": med["b"] / med["matmul"]}
        print(json.dumps(row), flush=True)
        rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"device": torch.cuda.get_device_name(), "a": args.a, "b": args.b,
              "rounds": args.rounds, "rows": rows}
    (out / "ce_forward_ab.json").write_text(json.dumps(result, indent=1))
    lines = [f"# CE forward A/B on {result['device']}: a = {args.a}, b = {args.b}", "",
             "| N | D | V | a ms | b ms | matmul ms | a / matmul | b / matmul | b / a | loss err a | loss err b |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        m = r["ms"]
        lines.append(f"| {r['N']} | {r['D']} | {r['V']} | {m['a']:.3f} | {m['b']:.3f} | {m['matmul']:.3f} "
                     f"| {r['a_over_matmul']:.3f} | {r['b_over_matmul']:.3f} | {m['b'] / m['a']:.3f} "
                     f"| {r['rel_err_a']:.1e} | {r['rel_err_b']:.1e} |")
    (out / "ce_forward_ab.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
