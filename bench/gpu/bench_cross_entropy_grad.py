#!/usr/bin/env python3
"""softmax.linear_cross_entropy forward + backward on the GPU.

    python3 bench/gpu/bench_cross_entropy_grad.py build [--out-dir build-gpu/ceg]  # here
    python3 bench/gpu/bench_cross_entropy_grad.py run --lib-dir build-gpu/ceg --out DIR  # H200

`build` lowers, through ``softmax-to-nvvm`` into ``libsoftmax_ceg.so``
(bench/gpu/aot.py), for each shape a forward that writes lse (mean, bf16)
and its gradient (``softmax.linear_cross_entropy_grad``, bf16 gradients,
the filter counts): the benchmark's shapes (N 8192, D 2048 and 4096, V
128256 and 256000) with the default bf16 filter (2^-12), one of them also
in exact mode (filter 0), and an odd check shape (N 300, D 72, V 1031).

`run`, in one process, on realistic logits (bench_cross_entropy.inputs:
hidden rows near their targets' classifier rows, losses of 1-4 nats, every
17th token ignored):
1. check: gradients against float64 torch from the same rounded inputs:
   grad_hidden on 64 tokens (their logits over every class) and
   grad_classifier on 64 classes (over every token), norm-wise relative
   error (the issue's bars: 1e-2 with the filter, 1e-3 exact), and the
   filtered fraction of tiles from the kernel's counts;
2. timings (triton.testing.do_bench, median): ours (forward with lse, then
   the gradient) against torch eager and torch.compile of
   ``F.cross_entropy(h @ W.T, t)`` forward + backward (grads of h and W),
   with the matmul floor (three N x D x V bf16 products on cuBLAS) and peak
   extra memory: torch's (max_memory_allocated around the call) and ours
   (our kernels allocate outside torch: the f32 accumulators N D + V D and
   N weights, plus the forward's 0.3 MiB).
Results: DIR/cross_entropy_grad.{json,md}.

`build --class-max` adds, on sm_90a, a `_cm` variant of each shape whose
forward also writes class_max (each token's largest logit per 256
classes) and whose gradient takes it, filtering the tiles it bounds
before recomputing their logits; its third filter count (how many) is
reported as `bounded`.

`run --inputs zipf` draws language-model-like logits instead (zipf_inputs):
the mass besides the target on a few alternatives whose ids, like the
targets', follow Zipf's law, as a vocabulary numbered by frequency does.
The filter's error depends on where that mass sits (bench/cpu/
ce_filter_error.cpp computes the rule's error in float64 on both).
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
from bench_cross_entropy import ce, inputs, peak_extra_mib  # noqa: E402

# name: (N, D, V, filter (None: the default 2^-12))
SHAPES = {
    "g_8192_2048_128256": (8192, 2048, 128256, None),
    "g_8192_4096_128256": (8192, 4096, 128256, None),
    "g_8192_2048_256000": (8192, 2048, 256000, None),
    "g_8192_4096_256000": (8192, 4096, 256000, None),
    "g_8192_2048_128256_exact": (8192, 2048, 128256, 0.0),
    "g_300_72_1031": (300, 72, 1031, None),
    # Smaller filters: what they cost and what they keep (filter sweep).
    "g_8192_2048_256000_f14": (8192, 2048, 256000, 2.0 ** -14),
    "g_8192_2048_256000_f16": (8192, 2048, 256000, 2.0 ** -16),
    "g_8192_2048_128256_f14": (8192, 2048, 128256, 2.0 ** -14),
    "g_8192_2048_256000_f13": (8192, 2048, 256000, 2.0 ** -13),
    "g_8192_4096_256000_f13": (8192, 4096, 256000, 2.0 ** -13),
    "g_8192_2048_128256_f13": (8192, 2048, 128256, 2.0 ** -13),
}
BENCH = ["g_8192_2048_128256", "g_8192_4096_128256", "g_8192_2048_256000",
         "g_8192_4096_256000", "g_8192_2048_128256_exact", "g_8192_2048_256000_f14",
         "g_8192_2048_256000_f16", "g_8192_2048_128256_f14", "g_8192_2048_256000_f13",
         "g_8192_4096_256000_f13", "g_8192_2048_128256_f13"]


def functions(name: str, n: int, d: int, v: int, filt, class_max: bool = False) -> str:
    h, w, t = f"memref<{n}x{d}xbf16>", f"memref<{v}x{d}xbf16>", f"memref<{n}xi64>"
    # Exact mode writes f32 gradients: its error is the kernel's, not that
    # of rounding the result to bf16 (2^-9 relative by itself).
    g = "f32" if filt == 0.0 else "bf16"
    gh, gw = f"memref<{n}x{d}x{g}>", f"memref<{v}x{d}x{g}>"
    s = f"memref<{n}xf32>"
    cm = f"memref<{n}x{-(-v // 256)}xf32>"
    cm_arg = f", %cm: {cm}" if class_max else ""
    fwd = (f"func.func @{name}_fwd(%h: {h}, %w: {w}, %t: {t}, %l: memref<f32>, %s: {s}{cm_arg}) "
           "attributes {llvm.emit_c_interface} {\n"
           f"  softmax.linear_cross_entropy ins(%h, %w, %t : {h}, {w}, {t}) "
           f"outs(%l : memref<f32>) lse(%s : {s})"
           + (f" class_max(%cm : {cm})" if class_max else "")
           + " reduction(mean)\n  return\n}\n")
    f = "" if filt is None else f" filter({filt})"
    nc = f"memref<{3 if class_max else 2}xi64>"
    bwd = (f"func.func @{name}_bwd(%h: {h}, %w: {w}, %t: {t}, %s: {s}, %dl: memref<f32>{cm_arg}, "
           f"%gh: {gh}, %gw: {gw}, %n: {nc}) attributes {{llvm.emit_c_interface}} {{\n"
           f"  softmax.linear_cross_entropy_grad ins(%h, %w, %t, %s, %dl : {h}, {w}, {t}, "
           f"{s}, memref<f32>)" + (f" class_max(%cm : {cm})" if class_max else "")
           + f" outs(%gh, %gw : {gh}, {gw}) filter_counts(%n : {nc}) "
           f"reduction(mean){f}\n  return\n}}\n")
    return fwd + bwd


# Kernels built for sm_90a too (the chunked gradient on warpgroup
# products, 128 x 256 tiles): their names end in this.
WGMMA = "_sm90a"


# Variants with class_max (sm_90a only): their base names end in this.
CLASS_MAX = "_cm"


def uses_class_max(name: str) -> bool:
    return name.endswith(CLASS_MAX + WGMMA)


def base_name(name: str) -> str:
    """The SHAPES key of a kernel name."""
    if name.endswith(WGMMA):
        name = name[:-len(WGMMA)]
    return name[:-len(CLASS_MAX)] if name.endswith(CLASS_MAX) else name


def class_tile(name: str) -> int:
    return 256 if name.endswith(WGMMA) else 128


def build(args) -> int:
    out = Path(args.out_dir)
    shapes = {k: s for k, s in SHAPES.items() if not args.only or k in args.only.split(",")}
    kernels, objects, report = {}, [], {}
    for chip in args.chips.split(","):
        suffix = WGMMA if chip == "sm_90a" else ""
        unit = {k + suffix: s for k, s in shapes.items()}
        if args.class_max and chip == "sm_90a":
            unit.update({k + CLASS_MAX + suffix: s for k, s in shapes.items()})
        text = "".join(functions(k, *s, class_max=uses_class_max(k)) for k, s in unit.items())
        # PTX 8.1: the gradient's vector reductions (red.global.add.v2.f32).
        obj, figures = aot.compile_unit(text, "softmax_ceg_" + chip, out, Path(args.build_dir),
                                        args.toolkit, "features=+ptx81", chip=chip)
        objects.append(obj)
        kernels.update(unit)
        report.update(figures)
    aot.link(objects, "softmax_ceg", out, Path(args.build_dir))
    (out / "kernels.json").write_text(json.dumps({"shapes": kernels, "ptxas": report},
                                                 indent=1))
    for k, r in report.items():
        print(k, r)
    return 0


def spec_of(n, d, v):
    return ("bf16", n, d, v, "mean", False, None, None, 64, True)


def ours(lib, name, h, w, t):
    """Calls for the forward (loss, lse) and the backward; their buffers."""
    import torch
    n = h.shape[0]
    loss = torch.empty((), device="cuda")
    lse = torch.empty(n, device="cuda")
    dl = torch.ones((), device="cuda")
    gt = torch.float32 if SHAPES[base_name(name)][3] == 0.0 else h.dtype
    gh, gw = torch.empty_like(h, dtype=gt), torch.empty_like(w, dtype=gt)
    if uses_class_max(name):
        cm = torch.empty(n, -(-w.shape[0] // 256), device="cuda")
        counts = torch.zeros(3, dtype=torch.int64, device="cuda")
        fwd, _ = lib.call(f"{name}_fwd", h, w, t, loss, lse, cm)
        bwd, _ = lib.call(f"{name}_bwd", h, w, t, lse, dl, cm, gh, gw, counts)
    else:
        cm = None
        counts = torch.zeros(2, dtype=torch.int64, device="cuda")
        fwd, _ = lib.call(f"{name}_fwd", h, w, t, loss, lse)
        bwd, _ = lib.call(f"{name}_bwd", h, w, t, lse, dl, gh, gw, counts)
    return fwd, bwd, dict(loss=loss, lse=lse, gh=gh, gw=gw, counts=counts, cm=cm)


def reference_grads(h, w, t, rows, cols):
    """float64 grad_hidden on token `rows` and grad_classifier on class
    `cols` of mean cross-entropy (ignore_index -100)."""
    import torch
    h64, w64 = h.double(), w.double()
    kept = (t != -100).sum().double()
    lse = torch.logsumexp(h64 @ w64.T, dim=1) if h.shape[0] * w.shape[0] <= 2**28 else None
    if lse is None:  # in slices of tokens
        lse = torch.cat([torch.logsumexp(h64[i:i + 256] @ w64.T, dim=1)
                         for i in range(0, h.shape[0], 256)])
    wt = torch.where(t != -100, 1.0 / kept, 0.0).double()
    # grad_hidden rows: du over every class.
    zr = h64[rows] @ w64.T
    du = torch.exp(zr - lse[rows, None]) * wt[rows, None]
    tr = t[rows]
    keep = tr != -100
    du[keep.nonzero()[:, 0], tr[keep]] -= wt[rows][keep]
    gh = du @ w64
    # grad_classifier rows: du over every token.
    zc = h64 @ w64[cols].T
    duc = torch.exp(zc - lse[:, None]) * wt[:, None]
    hit = (t[:, None] == cols[None, :])
    duc = duc - hit.double() * wt[:, None]
    gw = duc.T @ h64
    return gh, gw


def zipf_inputs(n: int, d: int, v: int, seed: int, device):
    """Logits shaped like a language model's: h = 14 w[t] + sum_c a_c w[c]
    + N(0, 1), with 8 alternatives c at a_c = 13, 12.5, ..., 9.5 (the few
    classes a model hesitates between), targets and alternatives drawn with
    probability proportional to 1 / (id + 1) (Zipf's law over a vocabulary
    numbered by frequency), every 17th token ignored. Mean p(target) is
    about 0.36 (bench/cpu/ce_filter_error.cpp with `2048 256000 1 14 8 1`)."""
    import torch
    g = torch.Generator(device=device).manual_seed(seed)
    w = torch.randn(v, d, generator=g, device=device) / math.sqrt(d)
    freq = 1.0 / torch.arange(1, v + 1, device=device, dtype=torch.float64)
    ids = torch.multinomial(freq, n * 9, replacement=True,
                            generator=g).view(n, 9)
    t = ids[:, 0].clone()
    h = 14.0 * w[t] + torch.randn(n, d, generator=g, device=device)
    for c in range(8):
        h += (13.0 - 0.5 * c) * w[ids[:, c + 1]]
    t[::17] = -100
    return h.to(torch.bfloat16), w.to(torch.bfloat16), t, None


def make_inputs(kind: str, n: int, d: int, v: int, seed: int):
    """The `run --inputs` generator: "flat" (bench_cross_entropy.inputs) or
    "zipf"."""
    if kind == "zipf":
        return zipf_inputs(n, d, v, seed, "cuda")
    return inputs(spec_of(n, d, v), n, seed, "cuda")


def check(lib, name, seed, kind: str) -> dict:
    import torch
    n, d, v, filt = SHAPES[base_name(name)]
    h, w, t, _ = make_inputs(kind, n, d, v, seed)
    fwd, bwd, buf = ours(lib, name, h, w, t)
    fwd()
    bwd()
    torch.cuda.synchronize()
    lib.check_error()
    g = torch.Generator(device="cuda").manual_seed(seed)
    rows = torch.randperm(n, generator=g, device="cuda")[:64]
    # Half of the classes are targets (their gradients hold the -1 terms).
    cols = torch.cat([t[t != -100][:32].unique(),
                      torch.randint(0, v, (32,), generator=g, device="cuda")]).unique()
    gh, gw = reference_grads(h, w, t, rows, cols)

    def rel(a, r):
        return ((a.double() - r).norm() / r.norm()).item()
    eh, ew = rel(buf["gh"][rows], gh), rel(buf["gw"][cols], gw)
    counts = [int(x) for x in buf["counts"].tolist()]
    tiles, filtered = counts[:2]
    bounded = counts[2] if len(counts) > 2 else 0
    bar = 1e-3 if filt == 0.0 else 1e-2
    ok = eh <= bar and ew <= bar and \
        tiles == math.ceil(n / 128) * math.ceil(v / class_tile(name)) and bounded <= filtered
    if uses_class_max(name):
        # class_max against float64 on the checked tokens.
        lg = h[rows].double() @ w.double().T
        pad = torch.full((len(rows), buf["cm"].shape[1] * 256 - v), -math.inf,
                         dtype=torch.float64, device="cuda")
        ref = torch.cat([lg, pad], dim=1).view(len(rows), -1, 256).amax(dim=2)
        cm_err = ((buf["cm"][rows].double() - ref).abs().max() / ref.abs().max()).item()
        ok = ok and cm_err <= 1e-5
    return {"shape": name, "N": n, "D": d, "V": v,
            "filter": 2.0 ** -12 if filt is None else filt, "ok": bool(ok),
            "grad_hidden_rel_err": eh, "grad_classifier_rel_err": ew, "bar": bar,
            "tiles": tiles, "filtered": filtered, "filtered_fraction": filtered / tiles,
            "bounded": bounded, "bounded_fraction": bounded / tiles,
            "loss": buf["loss"].item()}


def workspace_mib(name, n, d, v, filt) -> float:
    """What our kernels allocate outside torch: the token weights and the
    f32 accumulators of bf16 gradients; the chunked form (sm_90a) keeps
    grad_hidden's accumulator and a chunk of du (CrossEntropyGradChunks.cpp)
    instead of grad_classifier's."""
    acc = 0 if filt == 0.0 else 1
    if not name.endswith(WGMMA):
        return ((n * d + v * d) * acc + n) * 4 / 2**20
    planes = 2 if filt == 0.0 else 1
    pad = math.ceil(n / 128) * 128
    tiles = max(min((256 << 20) // (256 * planes * 2) // pad, math.ceil(v / 256)), 1)
    du = planes * pad * tiles * 256 * 2
    flags = math.ceil(n / 128) * tiles * 4
    return (n * d * 4 * acc + n * 4 + du + flags) / 2**20


def kernel_times(step) -> dict:
    """us per launch name of one call of `step` (torch.profiler)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    out = {}
    for e in prof.key_averages():
        if e.device_type.name == "CUDA":
            out[e.key] = {"count": e.count, "total_us": e.device_time_total}
    return out


def timings(lib, reps: int, names, kind: str,
            profile_kernels: bool = False) -> list[dict]:
    import torch
    import triton.testing
    rows = []
    compiled = torch.compile(ce)
    for name in [k for k in names if base_name(k) in BENCH]:
        n, d, v, filt = SHAPES[base_name(name)]
        h, w, t, _ = make_inputs(kind, n, d, v, 11)
        fwd, bwd, buf = ours(lib, name, h, w, t)

        def both():
            fwd()
            bwd()
        both()
        torch.cuda.synchronize()
        lib.check_error()
        bench = lambda f: triton.testing.do_bench(f, warmup=5, rep=reps, return_mode="median")
        t_fwd = bench(fwd)
        t_bwd = bench(bwd)
        t_both = bench(both)
        lib.check_error()
        hg, wg = h.clone().requires_grad_(), w.clone().requires_grad_()

        def torch_step(f):
            def step():
                hg.grad = wg.grad = None
                f(hg, wg, t).backward()
            return step
        t_mm = bench(lambda: h @ w.T)
        eager = torch_step(ce)
        comp = torch_step(compiled)
        eager()
        comp()
        t_eager = bench(eager)
        t_comp = bench(comp)

        flops = 6.0 * n * d * v
        row = {"shape": name, "N": n, "D": d, "V": v,
               "filter": 2.0 ** -12 if filt is None else filt,
               "filtered_fraction": buf["counts"][1].item() / buf["counts"][0].item(),
               "bounded_fraction": (buf["counts"][2].item() / buf["counts"][0].item()
                                    if uses_class_max(name) else 0.0),
               "ours_fwd_ms": t_fwd, "ours_fwd_bwd_ms": t_both,
               "ours_bwd_ms": t_both - t_fwd, "ours_bwd_alone_ms": t_bwd, "matmul_ms": t_mm,
               "floor_fwd_bwd_ms": 3 * t_mm,
               "eager_fwd_bwd_ms": t_eager, "compile_fwd_bwd_ms": t_comp,
               "ours_vs_compile": t_comp / t_both, "ours_vs_eager": t_eager / t_both,
               "ours_dense_TFLOPs": flops / t_both / 1e9,
               "eager_extra_MiB": peak_extra_mib(eager),
               "compile_extra_MiB": peak_extra_mib(comp),
               "ours_torch_visible_extra_MiB": peak_extra_mib(both),
               "ours_workspace_MiB": workspace_mib(name, n, d, v, filt)}
        if profile_kernels:
            row["bwd_kernels"] = kernel_times(bwd)
        print(row, flush=True)
        rows.append(row)
        del hg, wg
        torch.cuda.empty_cache()
    return rows


def run_cmd(args) -> int:
    import torch
    lib = aot.Library(Path(args.lib_dir), "softmax_ceg")
    index = json.loads((Path(args.lib_dir) / "kernels.json").read_text())
    checks = []
    names = [k for k in index["shapes"] if not args.only or k in args.only.split(",")]
    for i, name in enumerate(names):
        r = check(lib, name, 300 + i, args.inputs)
        print(("PASS " if r["ok"] else "FAIL ") + json.dumps(r), flush=True)
        checks.append(r)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "inputs": args.inputs,
              "checks": checks, "ptxas": index.get("ptxas", {})}
    if not args.no_time:
        result["timings"] = timings(lib, args.reps, names, args.inputs,
                                    args.profile)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cross_entropy_grad.json").write_text(json.dumps(result, indent=1))
    lines = [f"# softmax.linear_cross_entropy forward + backward on {result['device']} "
             f"(torch {result['torch']})", "",
             "| kernel | shape | filter | grad_hidden err | grad_classifier err | "
             "tiles filtered | before recomputing | ok |",
             "|---|---|---|---|---|---|---|---|"]
    for c in checks:
        lines.append(f"| {c['shape']} | {c['N']}x{c['D']}x{c['V']} | {c['filter']:.3g} | "
                     f"{c['grad_hidden_rel_err']:.2e} | {c['grad_classifier_rel_err']:.2e} | "
                     f"{100 * c['filtered_fraction']:.1f}% | "
                     f"{100 * c['bounded_fraction']:.1f}% | {c['ok']} |")
    if "timings" in result:
        lines += ["", "| kernel | N | D | V | filter | filtered | before recomputing | ours fwd ms | "
                  "ours fwd+bwd ms | 3x matmul ms | eager ms | compile ms | vs compile | "
                  "ours MiB | eager MiB | compile MiB |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in result["timings"]:
            lines.append(
                f"| {r['shape']} | {r['N']} | {r['D']} | {r['V']} | {r['filter']:.3g} | "
                f"{100 * r['filtered_fraction']:.1f}% | {100 * r['bounded_fraction']:.1f}% | "
                f"{r['ours_fwd_ms']:.1f} | "
                f"{r['ours_fwd_bwd_ms']:.1f} | {r['floor_fwd_bwd_ms']:.1f} | "
                f"{r['eager_fwd_bwd_ms']:.1f} | {r['compile_fwd_bwd_ms']:.1f} | "
                f"{r['ours_vs_compile']:.2f}x | "
                f"{r['ours_workspace_MiB'] + r['ours_torch_visible_extra_MiB']:.0f} | "
                f"{r['eager_extra_MiB']:.0f} | {r['compile_extra_MiB']:.0f} |")
    (out / "cross_entropy_grad.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(c["ok"] for c in checks) else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out-dir", default=str(aot.ROOT / "build-gpu" / "ceg"))
    b.add_argument("--build-dir", default=str(aot.ROOT / "build"))
    b.add_argument("--toolkit", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    b.add_argument("--only", default="", help="shape names, comma-separated")
    b.add_argument("--chips", default="sm_90,sm_90a",
                   help="a unit per chip; sm_90a names end in " + WGMMA)
    b.add_argument("--class-max", action="store_true",
                   help="also a class_max variant of each shape on sm_90a (names end in "
                        + CLASS_MAX + WGMMA + ")")
    r = sub.add_parser("run")
    r.add_argument("--lib-dir", default="build-gpu/ceg")
    r.add_argument("--out", default=os.environ.get("OUT", "."))
    r.add_argument("--reps", type=int, default=50)
    r.add_argument("--only", default="", help="kernel names to run, comma-separated")
    r.add_argument("--profile", action="store_true",
                   help="also time each kernel of one backward (torch.profiler)")
    r.add_argument("--no-time", action="store_true")
    r.add_argument("--inputs", choices=("flat", "zipf"), default="flat",
                   help="the logits' generator (flat: the forward bench's)")
    args = ap.parse_args()
    return build(args) if args.cmd == "build" else run_cmd(args)


if __name__ == "__main__":
    sys.exit(main())
