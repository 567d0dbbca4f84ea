#!/usr/bin/env python3
"""The skip threshold in decode on the GPU: the decode schedule (GQA packing,
16 rows per warp, two K/V buffers, the split cost model) with
``skip(lambda ...)`` against the same op without a threshold.

Two steps, one file (the shapes are shared):

    python3 bench/blasst/bench_skip_decode.py build [--out-dir build-gpu/skip_decode]  # here
    python3 bench/blasst/bench_skip_decode.py run --lib-dir build-gpu/skip_decode [--out DIR]

`build` writes one softmax.attention function per (shape, variant) with
static shapes, lowers them with softmax-to-nvvm and links
libsoftmax_skip_decode.so (bench/gpu/bench_decode.py's steps). Variants:

  dense    no threshold: the mapping's plan
  skip     skip(lambda %t : memref<Bxf32>, tile [Qt, 64]) skip_counts(...):
           one query row takes tile [16, 64] (a row per head), several take
           [1, 64]; the mapping's plan (packed, two buffers)
  skip_b1  the same with one K/V buffer (V of a tile requested after its
           vote, the next K after P V): what the two-buffer schedule gives
  skip_nocounts  the same without skip_counts (its sparsity is the rule's)
  dense_cpasync, skip_cpasync  dense and skip with K/V tiles by cp.async
           (tile_copy = cp_async) where the plan takes TMA on sm_90

`run` first checks small odd shapes (primes, splits that end mid-tile,
per-request lambda with an entry that turns skipping off): the kernel's
counts against the rule emulated in float64 at the plan's split
(skip_rule.emulate_rows), its output against the emulation of the same
skips (rel err <= 1e-2) and against dense within the rule's bound. Then,
on structured inputs (python/softmax_mlir/structured.py, peak 12 and 16),
each timed shape: dense, and skip at every lambda (0: nothing skipped, the
machinery's cost), with the counts' sparsity (row, tile) pairs, the
fraction of (warp, tile) pairs whose V load and P V were skipped (every
row of the warp's packed heads agreed: the work saved), the error against
float64 dense, KV GB/s and the speedup over dense. Fails when a check
fails or nothing was skipped.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "gpu"))
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_decode import build_library, cli, load_library  # noqa: E402

# name: (B, H, Hkv, Nq, Nk, d, causal)
SHAPES = {
    "b8_h32_kv8_l32768": (8, 32, 8, 1, 32768, 128, False),
    "b1_h32_kv8_l131072": (1, 32, 8, 1, 131072, 128, False),
    "b8_h32_kv8_q4_l32768": (8, 32, 8, 4, 32768, 128, True),
    "b8_h32_kv8_q4_l32768_nc": (8, 32, 8, 4, 32768, 128, False),
}
CHECKS = {
    "chk_b2_h8_kv2_l1031": (2, 8, 2, 1, 1031, 64, False),
    "chk_b2_h8_kv2_l20011": (2, 8, 2, 1, 20011, 128, False),
    "chk_b1_h4_kv1_q3_l3001": (1, 4, 1, 3, 3001, 128, True),
    "chk_b2_h2_kv2_l777": (2, 2, 2, 1, 777, 128, True),
}
VARIANTS = {"dense": None, "dense_cpasync": None, "skip": {},
            "skip_cpasync": {"tile_copy": "cp_async"}, "skip_b1": {"buffers": 1},
            "skip_nocounts": {}}
LAMBDAS = [0.0, 1e-3, 1e-2, 3e-2]


def tile_rows(shape) -> int:
    return 16 if shape[3] == 1 else 1


def function(name: str, shape, request, skips: bool) -> str:
    b, h, hkv, nq, nk, d, causal = shape
    qt, kt = f"memref<{b}x{h}x{nq}x{d}xbf16>", f"memref<{b}x{hkv}x{nk}x{d}xbf16>"
    args = f"%q: {qt}, %k: {kt}, %v: {kt}, %o: {qt}"
    skip = ""
    if skips:
        args += f", %t: memref<{b}xf32>, %n: memref<2xi64>"
        skip = f" skip(lambda %t : memref<{b}xf32>, tile [{tile_rows(shape)}, 64])"
        if not name.endswith("nocounts"):
            skip += " skip_counts(%n : memref<2xi64>)"
    attr = ""
    if request:
        fields = ", ".join(f"{k} = {v}" for k, v in request.items())
        attr = f" {{softmax.strategy = #softmax.attention_gpu_strategy<{fields}>}}"
    return (f"func.func @{name}({args}) attributes {{llvm.emit_c_interface}} {{\n"
            f"  softmax.attention ins(%q, %k, %v : {qt}, {kt}, {kt}) outs(%o : {qt}) "
            f"masked(zero){' causal' if causal else ''}{skip}{attr}\n  return\n}}\n")


# More splits than the plan's: more blocks, so more K tiles in flight per
# multiprocessor, against fewer tiles per split (each split's first tile is
# folded).
MORE_SPLITS = {"b8_h32_kv8_l32768": [8, 16], "b1_h32_kv8_l131072": [64]}


def variants_of(shape_name: str) -> dict:
    v = dict(VARIANTS)
    if shape_name in CHECKS:
        v.pop("dense")
        v.pop("dense_cpasync")
        v.pop("skip_nocounts")
    for n in MORE_SPLITS.get(shape_name, []):
        v[f"dense_s{n}"] = None
        v[f"skip_s{n}"] = {"key_splits": n}
    return v


def kernels():
    for shape_name, shape in {**CHECKS, **SHAPES}.items():
        for var, req in variants_of(shape_name).items():
            if var.startswith("dense_s"):
                req = {"key_splits": int(var[7:])}
                yield f"{shape_name}__{var}", shape, req, False
            elif var == "dense_cpasync":
                yield f"{shape_name}__{var}", shape, {"tile_copy": "cp_async"}, False
            else:
                yield f"{shape_name}__{var}", shape, req, req is not None


def build(args) -> int:
    return build_library(args, "".join(function(*k) for k in kernels()),
                         "skip_decode")


def plan_field(plan: str | None, field: str, default: int) -> int:
    m = re.search(rf"{field} = (\d+)", plan or "")
    return int(m[1]) if m else default


def run(args) -> int:
    import numpy as np
    import torch
    import triton.testing
    from bench_attention import memref
    from skip_rule import emulate_rows
    from softmax_mlir.structured import structured_qkv

    rt, lib, plans = load_library(Path(args.lib_dir), "skip_decode")
    out_dir = Path(args.out or os.environ.get("OUT", "."))
    out_dir.mkdir(parents=True, exist_ok=True)

    def check_error():
        if rt.softmaxRuntimeGetLastError():
            raise RuntimeError(rt.softmaxRuntimeGetLastErrorString().decode())

    def caller(name, q, k, v, o, lam=None, counts=None):
        f = getattr(lib, f"_mlir_ciface_{name}")
        descs = [memref(t) for t in (q, k, v, o)]
        if lam is not None:
            descs += [memref(lam), memref(counts)]
        ptrs = [ctypes.byref(x) for x in descs]
        return lambda: f(*ptrs)

    def inputs(shape, peak, seed):
        b, h, hkv, nq, nk, d, _ = shape
        q, k, v = structured_qkv(np.random.default_rng(seed), b, h, hkv, nq, nk, d, d,
                                 peak=peak, topics=32)
        t = lambda x: torch.from_numpy(x).cuda().to(torch.bfloat16).contiguous()
        return t(q), t(k), t(v)

    def rel(a, ref):
        return float((a.double() - ref).abs().max() / ref.abs().max().clamp_min(1e-30))

    memo = {}

    def emulate(name, shape, q, k, v, lams):
        # The variants of a shape share a plan's split and packing, so the
        # float64 emulation runs once per inputs and lambda.
        plan = plans.get(name)
        splits = plan_field(plan, "key_splits", 1)
        group = plan_field(plan, "packed_heads", 1)
        key = (id(q), splits, group, tuple(lams))
        if key not in memo:
            memo[key] = emulate_rows(q, k, v, shape[6], lams, 64, splits, group)
        return memo[key]

    results = {"checks": [], "cases": [], "complete": False}

    def save():
        (out_dir / "skip_decode.json").write_text(json.dumps(results, indent=1))

    failures = total_skipped = 0
    for ci, (shape_name, shape) in enumerate(CHECKS.items()):
        b = shape[0]
        q, k, v = inputs(shape, 16.0, 100 + ci)
        lams = [1e-2, 0.0][:b] if b > 1 else [1e-2]
        if shape_name.endswith("l20011"):
            lams = [3e-2, 1e-3]
        for var in ("skip", "skip_cpasync", "skip_b1"):
            name = f"{shape_name}__{var}"
            lam = torch.tensor(lams, device="cuda", dtype=torch.float32)
            o = torch.full_like(q, float("nan"))
            counts = torch.full((2,), -7, device="cuda", dtype=torch.int64)
            f = caller(name, q, k, v, o, lam, counts)
            # The counts are an init: the kernel zeroes them first.
            f()
            torch.cuda.synchronize()
            check_error()
            dense, ref, live, skipped, vskip, most = emulate(name, shape, q, k, v, lams)
            got = counts.tolist()
            e_rule, e_dense = rel(o, ref), rel(o, dense)
            vrange = float(v.double().max() - v.double().min())
            bound = 1e-2 + most * 64 * max(lams) * vrange / float(dense.abs().max())
            ok = (not torch.isnan(o).any().item() and e_rule <= 1e-2 and e_dense <= bound
                  and got[0] == live and abs(got[1] - skipped) <= max(1, live // 100))
            total_skipped += got[1]
            failures += not ok
            row = {"kernel": name, "plan": plans.get(name), "lambda": lams, "counts": got,
                   "rule_counts": [live, skipped], "v_skip_fraction": vskip,
                   "rel_err_vs_rule": e_rule, "rel_err_vs_dense": e_dense,
                   "dense_bound": bound, "ok": bool(ok)}
            results["checks"].append(row)
            print(json.dumps(row), flush=True)
        memo.clear()
    save()

    for shape_name, shape in SHAPES.items():
        b, h, hkv, nq, nk, d, causal = shape
        kv_bytes = b * hkv * nk * 2 * d * 2
        for peak in (12.0, 16.0):
            q, k, v = inputs(shape, peak, 7 + nk + int(peak))
            case = {"shape": shape_name, "peak": peak, "kv_bytes": kv_bytes,
                    "plans": {var: plans.get(f"{shape_name}__{var}")
                              for var in variants_of(shape_name)},
                    "kernels": {}}
            o = torch.empty_like(q)
            dense_call = caller(f"{shape_name}__dense", q, k, v, o)
            dense_call()
            torch.cuda.synchronize()
            check_error()
            ms = triton.testing.do_bench(dense_call, rep=args.rep)
            dense_ms = ms
            exact, *_ = emulate(f"{shape_name}__dense", shape, q, k, v, [0.0] * b)
            case["kernels"]["dense"] = {"ms": ms, "gbs": kv_bytes / (ms * 1e-3) / 1e9,
                                        "rel_err": rel(o, exact)}
            print(shape_name, peak, "dense", json.dumps(case["kernels"]["dense"]), flush=True)
            skip_vars = [v_ for v_ in variants_of(shape_name) if v_.startswith("skip")]
            for var in [v_ for v_ in variants_of(shape_name) if v_.startswith("dense_")]:
                dc = caller(f"{shape_name}__{var}", q, k, v, o)
                dc()
                torch.cuda.synchronize()
                check_error()
                ms = triton.testing.do_bench(dc, rep=args.rep)
                case["kernels"][var] = {"ms": ms, "gbs": kv_bytes / (ms * 1e-3) / 1e9,
                                        "speedup": dense_ms / ms, "rel_err": rel(o, exact)}
                print(shape_name, peak, var, json.dumps(case["kernels"][var]), flush=True)
            for var in skip_vars:
                name = f"{shape_name}__{var}"
                for lam_value in LAMBDAS:
                    lams = [lam_value] * b
                    lam = torch.tensor(lams, device="cuda", dtype=torch.float32)
                    counts = torch.zeros(2, device="cuda", dtype=torch.int64)
                    o.fill_(float("nan"))
                    call = caller(name, q, k, v, o, lam, counts)
                    call()
                    torch.cuda.synchronize()
                    check_error()
                    live, skipped = counts.tolist()
                    _, _, rl, rs, vskip, _ = emulate(name, shape, q, k, v, lams)
                    if var == "skip_nocounts":
                        live, skipped = rl, rs
                    err = rel(o, exact)
                    nan = bool(torch.isnan(o).any().item())
                    ms = triton.testing.do_bench(call, rep=args.rep)
                    entry = {"lambda": lam_value, "ms": ms,
                             "gbs": kv_bytes / (ms * 1e-3) / 1e9,
                             "speedup": dense_ms / ms, "live": live, "skipped": skipped,
                             "sparsity": skipped / max(live, 1),
                             "rule_sparsity": rs / max(rl, 1),
                             "v_skip_fraction": vskip, "rel_err": err, "nan": nan}
                    failures += nan
                    total_skipped += skipped
                    case["kernels"][f"{var}@{lam_value:g}"] = entry
                    print(shape_name, peak, var, json.dumps(entry), flush=True)
            results["cases"].append(case)
            save()
            memo.clear()
            del q, k, v, o
            torch.cuda.empty_cache()
    if total_skipped == 0:
        print("FAIL: nothing was skipped")
        failures += 1
    results["complete"] = True
    results["failures"] = failures
    save()
    lines = ["| shape | peak | kernel | lambda | ms | KV GB/s | speedup vs dense | "
             "sparsity (rows) | V skipped (warps) | rel err |", "|" + "---|" * 10]
    for c in results["cases"]:
        for key, e in c["kernels"].items():
            var, _, lam = key.partition("@")
            lines.append(f"| {c['shape']} | {c['peak']:g} | {var} | {lam or '-'} | "
                         f"{e['ms']:.4f} | {e['gbs']:.0f} | "
                         f"{e.get('speedup', 1.0):.2f}x | {e.get('sparsity', 0):.3f} | "
                         f"{e.get('v_skip_fraction', 0):.3f} | {e['rel_err']:.1e} |")
    (out_dir / "skip_decode.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"{failures} failures")
    return 1 if failures else 0


def main() -> int:
    return cli(__doc__, "skip_decode", build, run)


if __name__ == "__main__":
    sys.exit(main())
