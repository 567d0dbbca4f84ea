#!/usr/bin/env python3
"""Attention on the GPU, one process: ours (softmax.attention through
softmax-to-nvvm, built ahead of time by bench/gpu/build_attention.py)
against PyTorch SDPA's flash (FlashAttention-2) and cuDNN backends and,
with --flex, FlexAttention; bf16, float64-checked.

For every shape: fresh random inputs (N(0,1)); our output poisoned with NaN
before the checked run; ||o - ref|| / ||ref|| against a float64 reference on
a subset of (batch, head) pairs (bound 1e-2), and every element written;
then median times (triton.testing.do_bench) and TFLOP/s = 4 B H N^2 d / t
(halved when causal). Prints a markdown table last.

Usage (on the GPU machine):
    python3 bench/gpu/bench_attention.py --lib-dir build-gpu/attention [--flex] [--json F]
    python3 bench/gpu/bench_attention.py --lib-dir build-gpu/attention --f32 [--json F]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aot  # noqa: E402

SHAPES = [  # (B, H, Hkv, N, d)
    (4, 32, 32, 4096, 128),
    (1, 32, 32, 16384, 128),
    (16, 16, 16, 2048, 64),
    (4, 32, 8, 4096, 128),
]
MASKED_SHAPES = [(16, 16, 2048, 64), (4, 32, 4096, 128)]  # (B, H, N, d)
CHECK_SHAPES = [(2, 4, 4, 300, 64), (1, 2, 2, 257, 128), (2, 8, 2, 190, 64),
                (1, 4, 1, 129, 128)]


memref = aot.memref


class Ours(aot.Library):
    """libsoftmax_attention.so (build_attention.py) on torch's stream."""

    def __init__(self, lib_dir: Path, prefix: str = "attention"):
        super().__init__(lib_dir, "softmax_attention")
        self.prefix = prefix

    def fn(self, q, k, v, o, causal: bool, mask=None, prefix: str | None = None):
        name = f"{prefix or self.prefix}_d{q.shape[3]}" + ("_causal" if causal else "")
        if mask is not None and mask.shape[1] == 1 and mask.dtype == torch.bfloat16:
            name += "_headbcast_addmask"
        elif mask is not None:
            name += "_boolmask" if mask.dtype == torch.bool else "_addmask"
        return self.call(name, *((q, k, v, o) if mask is None else (q, k, v, mask, o)))


def reference(q, k, v, causal, pairs, mask=None, with_lse=False):
    """float64 attention of the (batch, head) pairs; fully masked rows 0.
    With `with_lse`, (outputs, their log-sum-exps)."""
    h, hkv = q.shape[1], k.shape[1]
    outs, lses = [], []
    for b, hh in pairs:
        kh = hh // (h // hkv)
        qd, kd, vd = q[b, hh].double(), k[b, kh].double(), v[b, kh].double()
        s = (qd @ kd.T) / math.sqrt(q.shape[3])
        nq, nk = s.shape
        if causal:
            i = torch.arange(nq, device=s.device)[:, None] + (nk - nq)
            j = torch.arange(nk, device=s.device)[None, :]
            s = s.masked_fill(j > i, float("-inf"))
        if mask is not None:
            mm = mask[b, min(hh, mask.shape[1] - 1)]
            s = s.masked_fill(~mm, float("-inf")) if mm.dtype == torch.bool else s + mm.double()
        p = torch.softmax(s, dim=-1).nan_to_num(0.0)
        outs.append(p @ vd)
        lses.append(torch.logsumexp(s, dim=-1))
    return (torch.stack(outs), torch.stack(lses)) if with_lse else torch.stack(outs)


def rel_err(o, q, k, v, causal, pairs, mask=None):
    ref = reference(q, k, v, causal, pairs, mask)
    got = torch.stack([o[b, hh] for b, hh in pairs]).double()
    if torch.isnan(got).any():
        return float("inf")
    return float(torch.linalg.norm(got - ref) / torch.linalg.norm(ref))


def sdpa(backend):
    from torch.nn.attention import sdpa_kernel

    def run(q, k, v, causal):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                  enable_gqa=k.shape[1] != q.shape[1])
    return run


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib-dir", default="build-gpu/attention")
    ap.add_argument("--flex", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--only-check", action="store_true")
    ap.add_argument("--shapes", default=None, help="indices into SHAPES, e.g. 0,2")
    ap.add_argument("--misaligned-child", action="store_true",
                    help="(internal) call the kernel on a query 2 bytes off 16-byte "
                         "alignment; the host code must stop with a message")
    ap.add_argument("--f32", action="store_true",
                    help="f32 attention instead (F32_SHAPES): ours exact (3xTF32, the "
                         "default) and tf32 against SDPA's f32 backends (math with and "
                         "without TF32, efficient; flash and cuDNN tried); needs a library "
                         "built with build_attention.py --f32")
    ap.add_argument("--f32-variants", default="",
                    help="comma-separated kernel prefixes also checked and timed with "
                         "--f32 (variants linked in with build_attention.py --extra-object)")
    ap.add_argument("--prefix", default="attention",
                    help="the bf16 kernels checked and timed as ours (attention_wg: "
                         "build_attention.py --wgmma's; the mask checks need "
                         "attention_*)")
    ap.add_argument("--masked", action="store_true",
                    help="time an additive bf16 mask broadcast over heads instead "
                         "(MASKED_SHAPES; SDPA's efficient and cuDNN backends, Flex)")
    args = ap.parse_args()
    import triton.testing
    from torch.nn.attention import SDPBackend

    torch.manual_seed(0)
    ours = Ours(Path(args.lib_dir), args.prefix)
    dev = "cuda"
    failures = 0
    if args.misaligned_child:
        flat = torch.randn(1 * 2 * 64 * 64 + 1, device=dev).bfloat16()
        q = flat[1:].view(1, 2, 64, 64)  # contiguous, data_ptr 2 bytes off
        k = torch.randn(1, 2, 64, 64, device=dev).bfloat16()
        o = torch.empty(1, 2, 64, 64, device=dev, dtype=torch.bfloat16)
        call, _ = ours.fn(q, k, k, o, False)
        call()
        torch.cuda.synchronize()
        print("misaligned call returned")
        return 0
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    if args.f32:
        return bench_f32(ours, args)

    # Correctness on small, odd shapes (partial tiles, GQA, MQA, +-1e4-ish
    # logits), causal and not.
    for (b, h, hkv, n, d) in CHECK_SHAPES:
        for causal in (False, True):
            for scale_q in (1.0, 30.0):
                q = (torch.randn(b, h, n, d, device=dev) * scale_q).bfloat16()
                k = torch.randn(b, hkv, n, d, device=dev).bfloat16()
                v = torch.randn(b, hkv, n, d, device=dev).bfloat16()
                o = torch.full((b, h, n, d), float("nan"), device=dev, dtype=torch.bfloat16)
                call, _ = ours.fn(q, k, v, o, causal)
                call()
                torch.cuda.synchronize()
                ours.check_error()
                pairs = [(bb, hh) for bb in range(b) for hh in range(h)]
                err = rel_err(o, q, k, v, causal, pairs)
                ok = err <= 1e-2 and not torch.isnan(o).any()
                failures += not ok
                print(f"check B{b} H{h} Hkv{hkv} N{n} d{d} causal={causal} q*{scale_q}: "
                      f"rel err {err:.2e} {'PASS' if ok else 'FAIL'}")
    # Nq != Nk: decode-like (few queries, many keys), and more queries than
    # keys, where causal (bottom-right) leaves the first Nq - Nk rows with
    # no key at all (their output must be 0); a single query row.
    for (nq, nk, d) in ((70, 300, 128), (300, 70, 64), (1, 257, 128), (129, 1, 64)):
        for causal in (False, True):
            q = torch.randn(2, 4, nq, d, device=dev).bfloat16()
            k = torch.randn(2, 2, nk, d, device=dev).bfloat16()
            v = torch.randn(2, 2, nk, d, device=dev).bfloat16()
            o = torch.full((2, 4, nq, d), float("nan"), device=dev, dtype=torch.bfloat16)
            call, _ = ours.fn(q, k, v, o, causal)
            call()
            torch.cuda.synchronize()
            ours.check_error()
            pairs = [(bb, hh) for bb in range(2) for hh in range(4)]
            err = rel_err(o, q, k, v, causal, pairs)
            ok = err <= 1e-2 and not torch.isnan(o).any()
            failures += not ok
            print(f"check Nq{nq} Nk{nk} d{d} causal={causal}: rel err {err:.2e} "
                  f"{'PASS' if ok else 'FAIL'}")
    # Mask operands (d 64): additive with -inf entries and a fully masked
    # row (its output must be 0), and boolean with causal.
    for kind in ("add", "bool") if args.prefix == "attention" else ():
        b, h, n, d = 2, 4, 200, 64
        q = torch.randn(b, h, n, d, device=dev).bfloat16()
        k = torch.randn(b, h, n, d, device=dev).bfloat16()
        v = torch.randn(b, h, n, d, device=dev).bfloat16()
        if kind == "add":
            mask = torch.randn(b, h, n, n, device=dev)
            mask[torch.rand(b, h, n, n, device=dev) < 0.3] = float("-inf")
            mask[0, 1, 5, :] = float("-inf")
        else:
            mask = torch.rand(b, h, n, n, device=dev) < 0.7
            mask[1, 2, 7, :] = False
        causal = kind == "bool"
        o = torch.full((b, h, n, d), float("nan"), device=dev, dtype=torch.bfloat16)
        call, _ = ours.fn(q, k, v, o, causal, mask)
        call()
        torch.cuda.synchronize()
        ours.check_error()
        pairs = [(bb, hh) for bb in range(b) for hh in range(h)]
        err = rel_err(o, q, k, v, causal, pairs, mask)
        full_row = o[0, 1, 5] if kind == "add" else o[1, 2, 7]
        ok = err <= 1e-2 and not torch.isnan(o).any() and bool((full_row == 0).all())
        failures += not ok
        print(f"check {kind} mask B{b} H{h} N{n} d{d} causal={causal}: rel err {err:.2e}, "
              f"fully masked row {'0' if (full_row == 0).all() else 'NOT 0'} "
              f"{'PASS' if ok else 'FAIL'}")
    # No keys at all: every row is fully masked, so the output is 0
    # (masked(zero)), and no key or value byte may be read.
    q = torch.randn(1, 2, 70, 64, device=dev).bfloat16()
    k = torch.empty(1, 2, 0, 64, device=dev, dtype=torch.bfloat16)
    o = torch.full((1, 2, 70, 64), float("nan"), device=dev, dtype=torch.bfloat16)
    call, _ = ours.fn(q, k, k, o, False)
    call()
    torch.cuda.synchronize()
    ours.check_error()
    ok = bool((o == 0).all())
    failures += not ok
    print(f"check Nk=0: output {'all 0' if ok else 'NOT 0'} {'PASS' if ok else 'FAIL'}")
    # No queries (an empty grid): nothing to write, no launch error.
    q0 = torch.empty(1, 2, 0, 64, device=dev, dtype=torch.bfloat16)
    o0 = torch.empty(1, 2, 0, 64, device=dev, dtype=torch.bfloat16)
    call, _ = ours.fn(q0, q, q, o0, False)
    call()
    torch.cuda.synchronize()
    ours.check_error()
    print("check Nq=0: no launch error PASS")
    # A misaligned query: the host code stops before the launch, with a
    # message (in a child process, since it aborts).
    import subprocess
    child = subprocess.run([sys.executable, __file__, "--lib-dir", args.lib_dir,
                            "--misaligned-child"], capture_output=True, text=True)
    said = "aligned to 16 bytes" in child.stdout + child.stderr
    ok = child.returncode != 0 and said and "returned" not in child.stdout
    failures += not ok
    print(f"check misaligned query: exit {child.returncode}, "
          f"{'message' if said else 'NO message'} {'PASS' if ok else 'FAIL'}")
    if args.only_check:
        return 1 if failures else 0

    if args.masked:
        return failures + bench_masked(ours, args)
    flops_note = "TFLOP/s = 4 B H N^2 d / t (causal: half)"
    rows = []
    results = []
    shapes = SHAPES if not args.shapes else [SHAPES[int(i)] for i in args.shapes.split(",")]
    impls = {"flash (FA2)": sdpa(SDPBackend.FLASH_ATTENTION),
             "cuDNN": sdpa(SDPBackend.CUDNN_ATTENTION)}
    if args.flex:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        flex = torch.compile(flex_attention)
    for (b, h, hkv, n, d) in shapes:
        for causal in (False, True):
            q = torch.randn(b, h, n, d, device=dev).bfloat16()
            k = torch.randn(b, hkv, n, d, device=dev).bfloat16()
            v = torch.randn(b, hkv, n, d, device=dev).bfloat16()
            o = torch.full((b, h, n, d), float("nan"), device=dev, dtype=torch.bfloat16)
            flops = 4 * b * h * n * n * d / (2 if causal else 1)
            call, _ = ours.fn(q, k, v, o, causal)
            call()
            torch.cuda.synchronize()
            ours.check_error()
            pairs = [(0, 0), (b - 1, h - 1)]
            err = rel_err(o, q, k, v, causal, pairs)
            written = not torch.isnan(o).any().item()
            ok = err <= 1e-2 and written
            failures += not ok
            t_ours = triton.testing.do_bench(call, warmup=25, rep=200, return_mode="median")
            ours.check_error()
            entry = {"B": b, "H": h, "Hkv": hkv, "N": n, "d": d, "causal": causal,
                     "ours_ms": t_ours, "ours_tflops": flops / t_ours / 1e9,
                     "ours_rel_err": err, "ours_all_written": written}
            line = {"ours": flops / t_ours / 1e9}
            for name, f in impls.items():
                try:
                    ref_o = f(q, k, v, causal)
                    e = rel_err(ref_o, q, k, v, causal, pairs)
                    t = triton.testing.do_bench(lambda: f(q, k, v, causal), warmup=25,
                                                rep=200, return_mode="median")
                    entry[f"{name}_ms"] = t
                    entry[f"{name}_tflops"] = flops / t / 1e9
                    entry[f"{name}_rel_err"] = e
                    line[name] = flops / t / 1e9
                except Exception as ex:  # a backend that refuses the shape
                    entry[f"{name}_error"] = str(ex)[:200]
                    line[name] = float("nan")
            if args.flex:
                try:
                    mask = None
                    if causal:
                        mask = create_block_mask(lambda bb, hh, qi, kv: qi >= kv, b, h, n, n)
                    fo = flex(q, k, v, block_mask=mask, enable_gqa=hkv != h)
                    e = rel_err(fo, q, k, v, causal, pairs)
                    t = triton.testing.do_bench(
                        lambda: flex(q, k, v, block_mask=mask, enable_gqa=hkv != h),
                        warmup=25, rep=200, return_mode="median")
                    entry["flex_ms"], entry["flex_tflops"], entry["flex_rel_err"] = (
                        t, flops / t / 1e9, e)
                    line["flex"] = flops / t / 1e9
                except Exception as ex:
                    entry["flex_error"] = str(ex)[:200]
                    line["flex"] = float("nan")
            results.append(entry)
            fa2 = line.get("flash (FA2)", float("nan"))
            rows.append(f"| B{b} H{h} Hkv{hkv} N{n} d{d} | {'yes' if causal else 'no'} | "
                        f"{line['ours']:.1f} | {fa2:.1f} | {line.get('cuDNN', float('nan')):.1f} | "
                        + (f"{line.get('flex', float('nan')):.1f} | " if args.flex else "")
                        + f"{line['ours'] / fa2:.3f} | {err:.2e} {'ok' if ok else 'FAIL'} |")
            print(rows[-1], flush=True)
    print(f"\n{flops_note}\n")
    print("| shape | causal | ours TFLOP/s | FA2 | cuDNN | " + ("Flex | " if args.flex else "")
          + "ours/FA2 | ours rel err |")
    print("|---|---|---:|---:|---:|" + ("---:|" if args.flex else "") + "---:|---|")
    for r in rows:
        print(r)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    print(f"{failures} failures")
    return 1 if failures else 0


F32_SHAPES = [  # (B, H, Hkv, N, d)
    (2, 16, 16, 2048, 64),
    (1, 32, 32, 4096, 128),
    (4, 16, 16, 1000, 64),
    (2, 16, 16, 1000, 128),
]
# Bounds on ||o - ref|| / ||ref|| against float64: exact (3xTF32) 1e-5 on
# N(0,1) inputs; tf32 5e-3 (its operands keep 11 significant bits).
F32_BOUND = {"exact": 1e-5, "tf32": 5e-3}


def errors(o, q, k, v, causal, pairs, mask=None):
    """(||o - ref|| / ||ref||, max |o - ref| / max |ref|) over the pairs."""
    ref = reference(q, k, v, causal, pairs, mask)
    got = torch.stack([o[b, hh] for b, hh in pairs]).double()
    if torch.isnan(got).any():
        return float("inf"), float("inf")
    d = got - ref
    return (float(torch.linalg.norm(d) / torch.linalg.norm(ref)),
            float(d.abs().max() / ref.abs().max()))


def bench_f32(ours, args) -> int:
    """f32 inputs: ours exact and tf32 (and --f32-variants) checked on odd
    shapes, then timed on F32_SHAPES against SDPA's f32 backends, one
    process, every output float64-checked."""
    import triton.testing
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dev, failures, results = "cuda", 0, []
    kernels = {"exact": "attention_f32", "tf32": "attention_tf32"}
    for v in filter(None, args.f32_variants.split(",")):
        kernels[v] = v
    bound = lambda name: F32_BOUND["tf32" if "tf32" in name else "exact"]
    worst = {name: [0.0, 0.0] for name in kernels}

    def check(name, q, k, v, causal, label, mask=None, bnd=None):
        nonlocal failures
        b, h = q.shape[0], q.shape[1]
        o = torch.full((b, h, q.shape[2], v.shape[3]), float("nan"), device=dev)
        call, _ = ours.fn(q, k, v, o, causal, mask, prefix=kernels[name])
        call()
        torch.cuda.synchronize()
        ours.check_error()
        pairs = [(bb, hh) for bb in range(b) for hh in range(h)]
        e, emax = errors(o, q, k, v, causal, pairs, mask)
        ok = e <= (bnd or bound(name)) and not torch.isnan(o).any()
        failures += not ok
        if bnd is None:
            worst[name] = [max(worst[name][0], e), max(worst[name][1], emax)]
        print(f"check {name} {label} causal={causal}: rel err {e:.2e} (max {emax:.2e}) "
              f"{'PASS' if ok else 'FAIL'}")
        return o

    for name in kernels:
        for (b, h, hkv, n, d) in CHECK_SHAPES:
            for causal in (False, True):
                q = torch.randn(b, h, n, d, device=dev)
                k = torch.randn(b, hkv, n, d, device=dev)
                v = torch.randn(b, hkv, n, d, device=dev)
                check(name, q, k, v, causal, f"B{b} H{h} Hkv{hkv} N{n} d{d}")
                # Large logits (q * 30): the score's absolute error grows with
                # it; reported against 1e-4 (exact) and 5e-2 (tf32).
                check(name, q * 30, k, v, causal, f"B{b} H{h} Hkv{hkv} N{n} d{d} q*30",
                      bnd=10 * bound(name))
        for (nq, nk, d) in ((70, 300, 128), (300, 70, 64), (1, 257, 128), (129, 1, 64)):
            for causal in (False, True):
                q = torch.randn(2, 4, nq, d, device=dev)
                k = torch.randn(2, 2, nk, d, device=dev)
                v = torch.randn(2, 2, nk, d, device=dev)
                check(name, q, k, v, causal, f"Nq{nq} Nk{nk} d{d}")
        q = torch.randn(1, 2, 70, 64, device=dev)
        k = torch.empty(1, 2, 0, 64, device=dev)
        o = torch.full((1, 2, 70, 64), float("nan"), device=dev)
        call, _ = ours.fn(q, k, k, o, False, prefix=kernels[name])
        call()
        torch.cuda.synchronize()
        ours.check_error()
        ok = bool((o == 0).all())
        failures += not ok
        print(f"check {name} Nk=0: output {'all 0' if ok else 'NOT 0'} {'PASS' if ok else 'FAIL'}")
    # An additive f32 mask with -inf entries and a fully masked row (exact).
    b, h, n, d = 2, 4, 200, 64
    q, k, v = (torch.randn(b, h, n, d, device=dev) for _ in range(3))
    mask = torch.randn(b, h, n, n, device=dev)
    mask[torch.rand(b, h, n, n, device=dev) < 0.3] = float("-inf")
    mask[0, 1, 5, :] = float("-inf")
    o = check("exact", q, k, v, False, f"add mask B{b} H{h} N{n} d{d}", mask)
    ok = bool((o[0, 1, 5] == 0).all())
    failures += not ok
    print(f"check exact add mask fully masked row: {'0' if ok else 'NOT 0'} "
          f"{'PASS' if ok else 'FAIL'}")
    if args.only_check:
        print(f"{failures} failures")
        return 1 if failures else 0

    def set_tf32(on: bool):
        # PyTorch 2.9+ spells it fp32_precision (and refuses a mix of the
        # two spellings); older ones allow_tf32.
        mm = torch.backends.cuda.matmul
        if hasattr(mm, "fp32_precision"):
            mm.fp32_precision = "tf32" if on else "ieee"
        else:
            mm.allow_tf32 = on

    def sdpa_f32(backend, tf32=False):
        def run(q, k, v, causal):
            set_tf32(tf32)
            try:
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            finally:
                set_tf32(False)
        return run
    refs = {"math": sdpa_f32(SDPBackend.MATH),
            "math (TF32 on)": sdpa_f32(SDPBackend.MATH, tf32=True),
            "efficient": sdpa_f32(SDPBackend.EFFICIENT_ATTENTION),
            "flash": sdpa_f32(SDPBackend.FLASH_ATTENTION),
            "cuDNN": sdpa_f32(SDPBackend.CUDNN_ATTENTION)}
    rows = []
    for (b, h, hkv, n, d) in F32_SHAPES:
        for causal in (False, True):
            q = torch.randn(b, h, n, d, device=dev)
            k = torch.randn(b, hkv, n, d, device=dev)
            v = torch.randn(b, hkv, n, d, device=dev)
            flops = 4 * b * h * n * n * d / (2 if causal else 1)
            pairs = [(0, 0), (b - 1, h - 1)]
            entry = {"B": b, "H": h, "Hkv": hkv, "N": n, "d": d, "causal": causal}
            cells, errs = [], []
            for name in kernels:
                o = torch.full((b, h, n, d), float("nan"), device=dev)
                call, _ = ours.fn(q, k, v, o, causal, prefix=kernels[name])
                call()
                torch.cuda.synchronize()
                ours.check_error()
                e, emax = errors(o, q, k, v, causal, pairs)
                written = not torch.isnan(o).any().item()
                ok = e <= bound(name) and written
                failures += not ok
                worst[name] = [max(worst[name][0], e), max(worst[name][1], emax)]
                t = triton.testing.do_bench(call, warmup=25, rep=200, return_mode="median")
                ours.check_error()
                entry[f"ours {name}"] = {"ms": t, "tflops": flops / t / 1e9, "rel_err": e,
                                         "max_rel_err": emax, "all_written": written}
                cells.append(f"{flops / t / 1e9:.1f}")
                errs.append(f"{e:.1e}{'' if ok else ' FAIL'}")
            for name, f in refs.items():
                try:
                    e, emax = errors(f(q, k, v, causal), q, k, v, causal, pairs)
                    t = triton.testing.do_bench(lambda: f(q, k, v, causal), warmup=25,
                                                rep=200, return_mode="median")
                    entry[name] = {"ms": t, "tflops": flops / t / 1e9, "rel_err": e,
                                   "max_rel_err": emax}
                    cells.append(f"{flops / t / 1e9:.1f}")
                    errs.append(f"{e:.1e}")
                except Exception as ex:  # a backend that refuses f32
                    entry[name] = {"error": (str(ex).strip().splitlines()
                                             or [type(ex).__name__])[0][:160]}
                    cells.append("n/a")
                    errs.append("n/a")
                torch.cuda.empty_cache()
            results.append(entry)
            rows.append(f"| B{b} H{h} N{n} d{d} | {'yes' if causal else 'no'} | "
                        + " | ".join(cells) + " | " + " | ".join(errs) + " |")
            print(rows[-1], flush=True)
    for name, f in refs.items():
        for entry in results:
            if "error" in entry[name]:
                print(f"{name} refused f32: {entry[name]['error']}")
                break
    names = [f"ours {n}" for n in kernels] + list(refs)
    print("\nTFLOP/s = 4 B H N^2 d / t (causal: half); rel err = ||o - ref|| / ||ref|| "
          "against float64 on (batch, head) pairs (0, 0) and (B-1, H-1)\n")
    print("| shape | causal | " + " | ".join(names) + " | "
          + " | ".join(f"err {n}" for n in names) + " |")
    print("|---|---|" + "---:|" * (2 * len(names)))
    for r in rows:
        print(r)
    for name, (e, emax) in worst.items():
        print(f"worst ours {name}: rel err {e:.2e}, max-abs/max-ref {emax:.2e}")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "worst": worst}, indent=1))
    print(f"{failures} failures")
    return 1 if failures else 0


def bench_masked(ours, args) -> int:
    """Additive bf16 mask [B, 1, N, N] (10% -inf), non-causal: ours against
    SDPA's memory-efficient and cuDNN backends (flash takes no mask) and
    FlexAttention with the mask as a score_mod."""
    import triton.testing
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dev, failures, results = "cuda", 0, []
    impls = {}
    for label, backend in (("efficient", SDPBackend.EFFICIENT_ATTENTION),
                           ("cuDNN", SDPBackend.CUDNN_ATTENTION)):
        def run(q, k, v, m, backend=backend):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, attn_mask=m)
        impls[label] = run
    if args.flex:
        from torch.nn.attention.flex_attention import flex_attention
        flex = torch.compile(flex_attention)
        impls["Flex"] = lambda q, k, v, m: flex(
            q, k, v, score_mod=lambda s, b, h, i, j: s + m[b, 0, i, j])
    print("| shape (B, H, N, d), additive bf16 mask [B,1,N,N] | ours TFLOP/s | "
          + " | ".join(impls) + " | ours rel err |")
    print("|---|---:|" + "---:|" * len(impls) + "---|")
    for (b, h, n, d) in MASKED_SHAPES:
        q = torch.randn(b, h, n, d, device=dev).bfloat16()
        k = torch.randn(b, h, n, d, device=dev).bfloat16()
        v = torch.randn(b, h, n, d, device=dev).bfloat16()
        m = torch.randn(b, 1, n, n, device=dev)
        m[torch.rand(b, 1, n, n, device=dev) < 0.1] = float("-inf")
        m = m.bfloat16()
        o = torch.full((b, h, n, d), float("nan"), device=dev, dtype=torch.bfloat16)
        flops = 4 * b * h * n * n * d
        call, _ = ours.fn(q, k, v, o, False, m)
        call()
        torch.cuda.synchronize()
        ours.check_error()
        pairs = [(0, 0), (b - 1, h - 1)]
        err = rel_err(o, q, k, v, False, pairs, m)
        ok = err <= 1e-2 and not torch.isnan(o).any().item()
        failures += not ok
        t = triton.testing.do_bench(call, warmup=25, rep=200, return_mode="median")
        entry = {"B": b, "H": h, "N": n, "d": d, "ours_tflops": flops / t / 1e9,
                 "ours_rel_err": err}
        cells = []
        for name, f in impls.items():
            try:
                e = rel_err(f(q, k, v, m), q, k, v, False, pairs, m)
                tt = triton.testing.do_bench(lambda: f(q, k, v, m), warmup=25, rep=200,
                                             return_mode="median")
                entry[f"{name}_tflops"], entry[f"{name}_rel_err"] = flops / tt / 1e9, e
                cells.append(f"{flops / tt / 1e9:.1f}")
            except Exception as ex:
                entry[f"{name}_error"] = str(ex)[:200]
                cells.append("n/a")
        results.append(entry)
        print(f"| {b}, {h}, {n}, {d} | {flops / t / 1e9:.1f} | " + " | ".join(cells)
              + f" | {err:.2e} {'ok' if ok else 'FAIL'} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
