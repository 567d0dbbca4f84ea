#!/usr/bin/env python3
"""softmax.linear_cross_entropy on the GPU: build, float64 check, timings.

    python3 bench/gpu/bench_cross_entropy.py build [--out-dir build-gpu/ce]   # here
    python3 bench/gpu/bench_cross_entropy.py run --lib-dir build-gpu/ce --out DIR  # H200

`build` lowers the forward at the benchmark's shapes (N 8192, D 2048 and
4096, V 128256 and 256000, bf16, mean) and at odd check shapes (f16, bias,
softcap, z-loss, i32 targets, V 1 and 50257, 8 tokens, D 72) through
``softmax-to-nvvm`` into ``libsoftmax_ce.so`` (bench/gpu/aot.py).

`run`, in one process:
1. check: every kernel on fixed-seed inputs with realistic logits (hidden
   states near their targets' classifier rows) and with some ignored
   tokens and, for reduction none, a target out of range: losses (and lse)
   against float64 torch from the same inputs, within 1e-4 relative (the
   f32 accumulation of D products and of V exps); NaN and 0 where the
   rules say.
2. timings (triton.testing.do_bench, median) at the benchmark's shapes: ours
   against torch eager and torch.compile of F.cross_entropy(h @ W.T, t),
   and the matmul floor (h @ W.T in bf16 on cuBLAS, the same run); peak
   extra memory of torch's (torch.cuda.max_memory_allocated) and our
   workspace (the kernels' own allocations, which torch's allocator does
   not see: 2 splits x N + 2 N floats).
Results: DIR/cross_entropy.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aot  # noqa: E402

DT = {"bf16": "bf16", "f16": "f16"}
# name: (dtype, N (None: dynamic), D, V, reduction, bias, softcap, z_loss,
#        target width, lse)
KERNELS = {
    "ce_bf16_8192_2048_128256": ("bf16", 8192, 2048, 128256, "mean", False, None, None, 64, False),
    "ce_bf16_8192_4096_128256": ("bf16", 8192, 4096, 128256, "mean", False, None, None, 64, False),
    "ce_bf16_8192_2048_256000": ("bf16", 8192, 2048, 256000, "mean", False, None, None, 64, False),
    "ce_bf16_8192_4096_256000": ("bf16", 8192, 4096, 256000, "mean", False, None, None, 64, False),
    "ce_bf16_8192_2048_128256_none": ("bf16", 8192, 2048, 128256, "none", False, None, None, 64, True),
    "ce_f16_300_72_1031_all": ("f16", 300, 72, 1031, "none", True, 30.0, 1e-4, 32, True),
    "ce_bf16_dyn_64_1_sum": ("bf16", None, 64, 1, "sum", False, None, None, 64, True),
    "ce_bf16_dyn_2048_128256_mean": ("bf16", None, 2048, 128256, "mean", False, None, None, 64, True),
    "ce_bf16_200_2048_50257_mean": ("bf16", 200, 2048, 50257, "mean", True, None, None, 64, True),
    "ce_bf16_8_4096_128256_none": ("bf16", 8, 4096, 128256, "none", False, None, None, 64, True),
    "ce_bf16_16_4096_128256": ("bf16", 16, 4096, 128256, "mean", False, None, None, 64, False),
    "ce_bf16_30_4096_128256": ("bf16", 30, 4096, 128256, "mean", False, None, None, 64, False),
}
BENCH = ["ce_bf16_8192_2048_128256", "ce_bf16_8192_4096_128256",
         "ce_bf16_8192_2048_256000", "ce_bf16_8192_4096_256000",
         "ce_bf16_16_4096_128256", "ce_bf16_30_4096_128256"]


def function(name: str, spec) -> str:
    dt, n, d, v, red, bias, cap, z, tw, lse = spec
    ns = "?" if n is None else str(n)
    h, w, t = f"memref<{ns}x{d}x{dt}>", f"memref<{v}x{d}x{dt}>", f"memref<{ns}xi{tw}>"
    loss = f"memref<{ns}xf32>" if red == "none" else "memref<f32>"
    args = [f"%h: {h}", f"%w: {w}", f"%t: {t}"]
    if bias:
        args.append(f"%b: memref<{v}x{dt}>")
    args.append(f"%l: {loss}")
    if lse:
        args.append(f"%s: memref<{ns}xf32>")
    op = f"  softmax.linear_cross_entropy ins(%h, %w, %t : {h}, {w}, {t})"
    if bias:
        op += f" bias(%b : memref<{v}x{dt}>)"
    op += f" outs(%l : {loss})"
    if lse:
        op += f" lse(%s : memref<{ns}xf32>)"
    op += f" reduction({red})"
    if cap:
        op += f" softcap({cap})"
    if z:
        op += f" z_loss({z})"
    return (f"func.func @{name}({', '.join(args)}) attributes {{llvm.emit_c_interface}} {{\n"
            f"{op}\n  return\n}}\n")


# Kernels built for sm_90a too, where the token tiles run on wgmma: their
# names end in this.
WGMMA = "_sm90a"


def build(args) -> int:
    out = Path(args.out_dir)
    base = {n: s for n, s in KERNELS.items()
            if not args.only or n in args.only.split(",")}
    kernels, objects, report = {}, [], {}
    for chip in args.chips.split(","):
        suffix = WGMMA if chip == "sm_90a" else ""
        unit = {n + suffix: s for n, s in base.items()}
        text = "".join(function(n, s) for n, s in unit.items())
        obj, figures = aot.compile_unit(text, "softmax_ce_" + chip, out, Path(args.build_dir),
                                        args.toolkit, chip=chip)
        objects.append(obj)
        kernels.update(unit)
        report.update(figures)
    aot.link(objects, "softmax_ce", out, Path(args.build_dir))
    (out / "kernels.json").write_text(json.dumps({"kernels": kernels, "ptxas": report},
                                                 indent=1))
    for n, r in report.items():
        print(n, r)
    print(f"wrote {out / 'libsoftmax_ce.so'}")
    return 0


def inputs(spec, n: int, seed: int, device):
    """Realistic logits: each hidden row near its target's classifier row
    (losses about 1-4 nats), some tokens ignored."""
    import torch
    dt, _, d, v, red, bias, cap, z, tw, lse = spec
    tdt = torch.bfloat16 if dt == "bf16" else torch.float16
    g = torch.Generator(device=device).manual_seed(seed)
    w = torch.randn(v, d, generator=g, device=device) / math.sqrt(d)
    t = torch.randint(0, v, (n,), generator=g, device=device)
    # |w_v| is about 1: the target's logit is about 10, every logit gets
    # N(0, 1) noise from the second term.
    h = 10.0 * w[t] + torch.randn(n, d, generator=g, device=device)
    t[::17] = -100
    if red == "none" and n > 3:
        t[3] = v + 5          # out of range: NaN
    b = (torch.randn(v, generator=g, device=device) * 0.5).to(tdt) if bias else None
    return h.to(tdt), w.to(tdt), t.to(torch.int64 if tw == 64 else torch.int32), b


def reference(spec, h, w, t, b):
    """float64 losses and lse (per token), from the same rounded inputs."""
    import torch
    dt, _, d, v, red, bias, cap, z, tw, lse_on = spec
    z64 = h.double() @ w.double().T
    if b is not None:
        z64 = z64 + b.double()
    if cap:
        z64 = cap * torch.tanh(z64 / cap)
    lse = torch.logsumexp(z64, dim=1)
    t64 = t.long()
    ignored = t64 == -100
    inrange = (t64 >= 0) & (t64 < v)
    zt = z64.gather(1, t64.clamp(0, v - 1)[:, None])[:, 0]
    loss = lse - zt + (z or 0.0) * lse * lse
    loss = torch.where(ignored, torch.zeros_like(loss),
                       torch.where(inrange, loss, torch.full_like(loss, math.nan)))
    if red == "sum":
        total = loss.sum()
    elif red == "mean":
        total = loss.sum() / (~ignored).sum()
    else:
        total = loss
    return total, lse


def check(lib, name, spec, seed) -> dict:
    import torch
    dt, n, d, v, red, bias, cap, z, tw, lse_on = spec
    n = n or 211
    h, w, t, b = inputs(spec, n, seed, "cuda")
    loss = torch.full((n,) if red == "none" else (), 7.0, device="cuda")
    lse = torch.full((n,), 7.0, device="cuda") if lse_on else None
    args = [h, w, t] + ([b] if b is not None else []) + [loss] + ([lse] if lse_on else [])
    go, _ = lib.call(name, *args)
    go()
    torch.cuda.synchronize()
    lib.check_error()
    ref, rlse = reference(spec, h, w, t, b)
    got = loss.double()

    def rel(a, r):
        fin = torch.isfinite(r)
        if not fin.any():
            return 0.0
        return ((a[fin] - r[fin]).abs() / r[fin].abs().clamp_min(1.0)).max().item()
    ok = torch.equal(torch.isnan(got), torch.isnan(ref))
    err = rel(got.reshape(-1), ref.reshape(-1))
    ok &= err <= 1e-4
    lerr = 0.0
    if lse_on:
        lerr = rel(lse.double(), rlse)
        ok &= lerr <= 1e-4
    res = {"kernel": name, "N": n, "ok": bool(ok), "loss_rel_err": err, "lse_rel_err": lerr,
           "nan_tokens": int(torch.isnan(ref).sum().item()) if ref.dim() else int(torch.isnan(ref).item()),
           "ignored_tokens": int((t == -100).sum().item())}
    if ref.dim() == 0:
        res.update(loss=got.item(), ref=ref.item())
    else:
        res.update(mean_loss=ref[torch.isfinite(ref)].mean().item())
    return res


def ce(h, w, t):
    """The baseline: PyTorch's cross-entropy of the classifier's logits."""
    import torch.nn.functional as F
    return F.cross_entropy(h @ w.T, t)


def peak_extra_mib(f) -> float:
    """Peak memory torch's allocator gives out while `f` runs, beyond what
    was allocated before, in MiB."""
    import torch
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    f()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - base) / 2**20


def timings(lib, reps: int, names, ours_only: bool = False) -> list[dict]:
    import torch
    import triton.testing
    rows = []
    compiled = torch.compile(ce)
    for name in [n + s for n in BENCH for s in ("", WGMMA) if n + s in names]:
        spec = KERNELS[name.removesuffix(WGMMA)]
        dt, n, d, v, red, *_ = spec
        h, w, t, _ = inputs(spec, n, 11, "cuda")
        loss = torch.empty((), device="cuda")
        go, _ = lib.call(name, h, w, t, loss)
        go()
        torch.cuda.synchronize()
        lib.check_error()
        bench = lambda f: triton.testing.do_bench(f, warmup=10, rep=reps, return_mode="median")
        t_ours = bench(go)
        lib.check_error()
        if ours_only:
            row = {"kernel": name, "N": n, "D": d, "V": v, "ours_ms": t_ours,
                   "ours_TFLOPs": 2.0 * n * d * v / t_ours / 1e9,
                   "ours_classifier_GBps": v * d * 2 / t_ours / 1e6}
            print(row, flush=True)
            rows.append(row)
            continue
        t_mm = bench(lambda: h @ w.T)
        t_eager = bench(lambda: ce(h, w, t))
        compiled(h, w, t)
        t_comp = bench(lambda: compiled(h, w, t))

        flops = 2.0 * n * d * v
        row = {"kernel": name, "N": n, "D": d, "V": v,
               "ours_ms": t_ours, "matmul_ms": t_mm, "eager_ms": t_eager,
               "compile_ms": t_comp,
               "matmul_TFLOPs": flops / t_mm / 1e9, "ours_TFLOPs": flops / t_ours / 1e9,
               "ours_over_matmul": t_ours / t_mm,
               "ours_classifier_GBps": v * d * 2 / t_ours / 1e6,
               "speedup_vs_eager": t_eager / t_ours, "speedup_vs_compile": t_comp / t_ours,
               "eager_extra_MiB": peak_extra_mib(lambda: ce(h, w, t)),
               "compile_extra_MiB": peak_extra_mib(lambda: compiled(h, w, t)),
               "ours_torch_visible_extra_MiB": peak_extra_mib(go)}
        print(row, flush=True)
        rows.append(row)
    return rows


def run_cmd(args) -> int:
    import torch
    lib = aot.Library(Path(args.lib_dir), "softmax_ce")
    index = json.loads((Path(args.lib_dir) / "kernels.json").read_text())
    checks = []
    for i, (name, spec) in enumerate(index["kernels"].items()):
        r = check(lib, name, tuple(spec), 100 + i)
        print(("PASS " if r["ok"] else "FAIL ") + json.dumps(r), flush=True)
        checks.append(r)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "checks": checks, "ptxas": index.get("ptxas", {})}
    if not args.no_time:
        result["timings"] = timings(lib, args.reps, index["kernels"], args.ours_only)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cross_entropy.json").write_text(json.dumps(result, indent=1))
    lines = [f"# softmax.linear_cross_entropy forward on {result['device']} "
             f"(torch {result['torch']})", "",
             f"Check: {sum(c['ok'] for c in checks)} of {len(checks)} kernels within "
             "1e-4 of float64.", ""]
    if "timings" in result and not args.ours_only:
        lines += ["| kernel | N | D | V | ours ms | matmul ms (TFLOP/s) | ours / matmul | eager ms "
                  "| compile ms | vs eager | vs compile | eager extra MiB | compile extra MiB |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in result["timings"]:
            lines.append(
                f"| {r['kernel']} | {r['N']} | {r['D']} | {r['V']} | {r['ours_ms']:.2f} | {r['matmul_ms']:.2f} "
                f"({r['matmul_TFLOPs']:.0f}) | {r['ours_over_matmul']:.2f} | {r['eager_ms']:.2f} "
                f"| {r['compile_ms']:.2f} | {r['speedup_vs_eager']:.2f}x | "
                f"{r['speedup_vs_compile']:.2f}x | {r['eager_extra_MiB']:.0f} | "
                f"{r['compile_extra_MiB']:.0f} |")
    (out / "cross_entropy.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(c["ok"] for c in checks) else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out-dir", default=str(aot.ROOT / "build-gpu" / "ce"))
    b.add_argument("--build-dir", default=str(aot.ROOT / "build"))
    b.add_argument("--toolkit", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    b.add_argument("--only", default="", help="kernel names, comma-separated")
    b.add_argument("--chips", default="sm_90,sm_90a",
                   help="one unit each; sm_90a's kernel names end in " + WGMMA)
    r = sub.add_parser("run")
    r.add_argument("--lib-dir", default="build-gpu/ce")
    r.add_argument("--out", default=os.environ.get("OUT", "."))
    r.add_argument("--reps", type=int, default=100)
    r.add_argument("--no-time", action="store_true")
    r.add_argument("--ours-only", action="store_true",
                   help="time our kernels only (variant sweeps)")
    args = ap.parse_args()
    return build(args) if args.cmd == "build" else run_cmd(args)


if __name__ == "__main__":
    sys.exit(main())
