#!/usr/bin/env python3
"""logsumexp of bf16 rows into an f32 result: 16-byte loads (vectors of 8,
the input's width, the mapping since session 36) against 8-byte ones
(vectors of 4, the width the f32 result used to impose), the plans
otherwise the same.

    python3 bench/gpu/probe/lse_f32_result.py build --out-dir build-gpu/lse_f32   # here
    python3 bench/gpu/probe/lse_f32_result.py run --lib-dir build-gpu/lse_f32     # GPU

`run` checks both against float64 torch on random rows and hostile ones
(all -inf, +-1e4, one huge element) and times them interleaved.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import aot  # noqa: E402

SHAPES = [(4096, 32768), (256, 128256), (32, 128256), (1024, 50257)]


def func(name: str, r: int, c: int, strategy: str = "") -> str:
    attr = f" {{softmax.strategy = {strategy}}}" if strategy else ""
    return (f"func.func @{name}(%x: memref<{r}x{c}xbf16>, %y: memref<{r}xf32>) "
            f"attributes {{llvm.emit_c_interface}} {{\n"
            f"  softmax.logsumexp ins(%x : memref<{r}x{c}xbf16>) outs(%y : memref<{r}xf32>) "
            f"dimension(1) masked(zero) algorithm(online){attr}\n  return\n}}\n")


def build(args) -> int:
    out, bld = Path(args.out_dir), Path(args.build_dir)
    text = ""
    for r, c in SHAPES:
        one = func("probe", r, c)
        mapped = subprocess.run([str(bld / "bin" / "softmax-opt"), "--softmax-map-to-gpu=chip=sm_90"],
                                input=one, capture_output=True, text=True, check=True).stdout
        plan = re.search(r"#softmax\.gpu_strategy<[^>]*>", mapped)[0]
        if "vector_width = 8" not in plan:
            raise SystemExit(f"{r}x{c}: the default plan is {plan}")
        print(f"{r}x{c}: {plan}")
        text += func(f"w8_{r}x{c}", r, c, plan)
        text += func(f"w4_{r}x{c}", r, c, plan.replace("vector_width = 8", "vector_width = 4"))
    obj, report = aot.compile_unit(text, "lse_f32", out, bld, args.toolkit)
    aot.link([obj], "lse_f32", out, bld)
    for k, v in report.items():
        print(k, v)
    return 0


def run(args) -> int:
    import torch
    import triton.testing
    lib = aot.Library(Path(args.lib_dir), "lse_f32")
    g = torch.Generator(device="cuda").manual_seed(7)
    print(torch.cuda.get_device_name())
    bad = 0
    for r, c in SHAPES:
        x = (torch.randn(r, c, generator=g, device="cuda") * 3).to(torch.bfloat16)
        x[0] = float("-inf")
        x[1 % r, ::3] = 1e4
        x[2 % r, c // 2] = -1e4
        x[3 % r, 5] = 1e4
        want = torch.logsumexp(x.double(), 1)
        times = {}
        for w in ("w8", "w4"):
            y = torch.empty(r, device="cuda")
            call, _ = lib.call(f"{w}_{r}x{c}", x, y)
            call()
            torch.cuda.synchronize()
            lib.check_error()
            fin = torch.isfinite(want)
            err = ((y.double() - want)[fin].abs() / want[fin].abs().clamp_min(1)).max().item()
            same_inf = bool((y[~fin] == want[~fin].float()).all())
            ok = err < 1e-5 and same_inf
            bad += not ok
            times[w] = [triton.testing.do_bench(call, warmup=10, rep=100, return_mode="median")
                        for _ in range(3)]
            print(f"{w} {r}x{c}: err {err:.1e} -inf rows {same_inf} {'PASS' if ok else 'FAIL'}")
        t8, t4 = min(times["w8"]) * 1e3, min(times["w4"]) * 1e3
        gbs = r * c * 2 / (t8 * 1e-6) / 1e9
        print(f"{r}x{c}: w8 {t8:.1f} us ({gbs:.0f} GB/s), w4 {t4:.1f} us, w8 / w4 {t8 / t4:.3f}")
    print(f"{bad} failed")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out-dir", default="build-gpu/lse_f32")
    b.add_argument("--build-dir", default=str(aot.ROOT / "build"))
    b.add_argument("--toolkit", default="/usr/local/cuda")
    r = sub.add_parser("run")
    r.add_argument("--lib-dir", default="build-gpu/lse_f32")
    args = ap.parse_args()
    return build(args) if args.cmd == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
