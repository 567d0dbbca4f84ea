#!/usr/bin/env python3
"""Decode attention on the GPU: split-KV and GQA packing against SDPA.

Two steps, one file (the shapes are shared):

    python3 bench/gpu/bench_decode.py build [--out-dir build-gpu/decode]   # here: softmax-opt
    python3 bench/gpu/bench_decode.py run --lib-dir build-gpu/decode [--out DIR]  # on the GPU

`build` writes one softmax.attention function per (shape, variant) with
static shapes, each with its #softmax.attention_gpu_strategy request, lowers
them with softmax-to-nvvm and links libsoftmax_decode.so (see
aot.py, whose steps it reuses). Variants:

  prefill   key_splits = 1, packed_heads = 1
  auto      no request: the mapping's plan (packing, the split cost model)
  pack      packed heads, no split
  r32b1     32 query rows per warp and one K/V buffer (the prefill kernel's)
  sN        packed heads, N splits
  b3, sNb3  three K/V buffers (the plan's splits, or N)
  *_phiP    algorithm(unified_max, phi = P) (phi_far, phi_over and
            phi_under: every block out of range, the fallback taken)

`run` checks every kernel against float64 (fresh N(0,1) inputs, the
output poisoned with NaN first; small odd shapes with an lse output too),
then times them (median of triton.testing.do_bench) with SDPA's cuDNN and
flash backends, and reports GB/s of KV read (B Hkv Nk (d + dv) bytes per
element) and its fraction of the read bandwidth measured in the same run.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

# name: (B, H, Hkv, Nq, Nk, d, causal)
SHAPES = {
    "b8_h32_kv8_l32768": (8, 32, 8, 1, 32768, 128, False),
    "b1_h32_kv8_l131072": (1, 32, 8, 1, 131072, 128, False),
    "b8_h32_kv8_q4_l32768": (8, 32, 8, 4, 32768, 128, True),
    "b1_h32_kv8_q16_l65536": (1, 32, 8, 16, 65536, 128, True),
}
# Odd shapes, checked only, with an lse result: primes, a split that ends
# mid-tile, more query rows than keys per split under causal.
CHECKS = {
    "chk_b2_h8_kv2_l1031": (2, 8, 2, 1, 1031, 64, False),
    "chk_b1_h4_kv1_q3_l300": (1, 4, 1, 3, 300, 128, True),
    "chk_b2_h4_kv2_q5_l2000": (2, 4, 2, 5, 2000, 64, True),
    "chk_b1_h2_kv2_q16_l97": (1, 2, 2, 16, 97, 64, True),
}
VARIANTS = {
    "prefill": {"key_splits": 1, "packed_heads": 1},
    "auto": {},
    "pack": {"key_splits": 1},
    "r32b1": {"rows_per_warp": 32, "buffers": 1},
    "s8": {"key_splits": 8},
    "s16": {"key_splits": 16},
    "s32": {"key_splits": 32},
    "s64": {"key_splits": 64},
    # algorithm(unified_max): phi 4 sits near the largest of 32k N(0, 1)
    # scores (every block kept at phi); phi -100 puts every block out of
    # range, so each one folds its keys twice (the fallback's cost).
    "auto_phi4": {"phi": 4.0},
    "s8_phi4": {"key_splits": 8, "phi": 4.0},
    "s16_phi4": {"key_splits": 16, "phi": 4.0},
    "auto_phi_far": {"phi": -100.0},
    # Three K/V buffers: tiles j + 1 and j + 2 in flight while j is folded.
    "b3": {"buffers": 3},
    # K/V tiles by cp.async instead of the plan's copy (TMA for one-warp
    # blocks), and by TMA where the plan copies through L1.
    "cpasync": {"tile_copy": "cp_async"},
    "tma": {"tile_copy": "tma"},
    # The plan's kernel again, last: the run's spread.
    "auto_again": {},
    "cpasync_again": {"tile_copy": "cp_async"},
}
CHECK_VARIANTS = {"auto": {}, "s3": {"key_splits": 3}, "s7": {"key_splits": 7},
                  "nopack_s5": {"key_splits": 5, "packed_heads": 1},
                  "phi2": {"phi": 2.0}, "s3_phi2": {"key_splits": 3, "phi": 2.0},
                  "phi_over": {"phi": -100.0},
                  "s7_phi_under": {"key_splits": 7, "phi": 150.0},
                  "b3": {"buffers": 3}, "s7_b3": {"key_splits": 7, "buffers": 3},
                  "b3_phi2": {"buffers": 3, "phi": 2.0},
                  "cpasync": {"tile_copy": "cp_async"},
                  "s7_cpasync": {"key_splits": 7, "tile_copy": "cp_async"},
                  "tma": {"tile_copy": "tma"}}


def packed_heads(shape) -> int:
    b, h, hkv = shape[:3]
    return h // hkv


def function(name: str, shape, request: dict, lse: bool) -> str:
    b, h, hkv, nq, nk, d, causal = shape
    req = dict(request)
    phi = req.pop("phi", None)
    algo = f" algorithm(unified_max, phi = {phi!r})" if phi is not None else ""
    # pack and sN pack all heads of a KV head; prefill and nopack_* ask for 1.
    if "key_splits" in req and "packed_heads" not in req:
        req["packed_heads"] = packed_heads(shape)
    qt, kt = f"memref<{b}x{h}x{nq}x{d}xbf16>", f"memref<{b}x{hkv}x{nk}x{d}xbf16>"
    lt = f"memref<{b}x{h}x{nq}xf32>"
    attr = ""
    if req:
        fields = ", ".join(f"{k} = {v}" for k, v in req.items())
        attr = f" {{softmax.strategy = #softmax.attention_gpu_strategy<{fields}>}}"
    args = f"%q: {qt}, %k: {kt}, %v: {kt}, %o: {qt}" + (f", %l: {lt}" if lse else "")
    outs = f"outs(%o, %l : {qt}, {lt})" if lse else f"outs(%o : {qt})"
    return (f"func.func @{name}({args}) attributes {{llvm.emit_c_interface}} {{\n"
            f"  softmax.attention ins(%q, %k, %v : {qt}, {kt}, {kt}) {outs} "
            f"masked(zero){' causal' if causal else ''}{algo}{attr}\n  return\n}}\n")


# DECODE_SWEEP=1 (build and run): every split count around the plan's, on
# the two fixed shapes, for the cost model.
SWEEP = {
    "b8_h32_kv8_l32768": [2, 3, 4, 5, 6, 7, 10, 12, 24],
    "b1_h32_kv8_l131072": [24, 28, 33, 36, 40, 43, 48, 49, 56, 66, 99],
}


# Split counts timed with three buffers (2 blocks a multiprocessor fit).
SWEEP_B3 = {
    "b8_h32_kv8_l32768": [2, 3, 4, 6, 8],
    "b1_h32_kv8_l131072": [16, 24, 32, 33, 48],
}


def variants_of(shape_name: str) -> dict:
    v = dict(VARIANTS)
    v.update({f"s{n}b3": {"key_splits": n, "buffers": 3}
              for n in SWEEP_B3.get(shape_name, [])})
    if SHAPES[shape_name][3] == 1:
        # Stream-K takes one query row under causal (planStreamK).
        v.update({"k33": {"stream_k": 33}, "k49": {"stream_k": 49}})
    if os.environ.get("DECODE_SWEEP"):
        v.update({f"s{n}": {"key_splits": n} for n in SWEEP.get(shape_name, [])})
    return v


def kernels():
    for shape_name, shape in SHAPES.items():
        for var, req in variants_of(shape_name).items():
            yield f"{shape_name}__{var}", shape, req, False
    for shape_name, shape in CHECKS.items():
        for var, req in CHECK_VARIANTS.items():
            yield f"{shape_name}__{var}", shape, req, True


def build_library(args, text: str, stem: str) -> int:
    """Lowers the module `text` with softmax-to-nvvm, records each
    function's plan (plans.json) and links libsoftmax_<stem>.so against the
    CUDA runtime in args.out_dir (through bench/gpu/aot.py)."""
    import re
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import aot
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    opt = Path(args.build_dir) / "bin" / "softmax-opt"
    module = out / f"{stem}.mlir"
    module.write_text(text)
    pipeline = f"--softmax-to-nvvm=chip=sm_90 toolkit={args.toolkit} format=bin"
    lowered = out / f"{stem}.llvm.mlir"
    aot.run([str(opt), str(module), pipeline, "-o", str(lowered)])
    # The plan each launch recorded, for the report.
    plans = {}
    mapped = aot.run([str(opt), str(module), "--softmax-map-to-gpu=chip=sm_90"]).stdout
    for fn in re.split(r"func\.func @", mapped)[1:]:
        name = fn.split("(")[0]
        m = re.search(r"#softmax\.attention_gpu_strategy<([^>]*)>", fn)
        plans[name] = m[1] if m else None
    ir = out / f"{stem}.ll"
    aot.run([str(aot.LLVM / "mlir-translate"), "--mlir-to-llvmir", str(lowered), "-o", str(ir)])
    obj = out / f"{stem}.o"
    aot.run([str(aot.LLVM / "clang"), "-c", "-O2", "-fPIC", "-Wno-override-module", str(ir),
            "-o", str(obj)])
    lib = aot.link([obj], f"softmax_{stem}", out, Path(args.build_dir))
    (out / "plans.json").write_text(json.dumps(plans, indent=1))
    print(f"wrote {lib} ({len(plans)} kernels)")
    return 0


def build(args) -> int:
    return build_library(args, "".join(function(n, s, r, l) for n, s, r, l in kernels()),
                         "decode")


def load_library(lib_dir: Path, stem: str):
    """(the CUDA runtime, libsoftmax_<stem>.so, the plans), with the
    runtime set to PyTorch's current stream."""
    import torch
    rt = ctypes.CDLL(str(lib_dir / "libsoftmax_cuda_runtime.so"), mode=ctypes.RTLD_GLOBAL)
    rt.softmaxRuntimeSetStream.argtypes = [ctypes.c_void_p]
    rt.softmaxRuntimeGetLastError.restype = ctypes.c_int
    rt.softmaxRuntimeGetLastErrorString.restype = ctypes.c_char_p
    lib = ctypes.CDLL(str(lib_dir / f"libsoftmax_{stem}.so"))
    plans = json.loads((lib_dir / "plans.json").read_text())
    rt.softmaxRuntimeSetStream(ctypes.c_void_p(torch.cuda.current_stream().cuda_stream or 1))
    return rt, lib, plans


def cli(doc: str, stem: str, build, run) -> int:
    """The `build` / `run` command line of a decode benchmark."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out-dir", default=str(ROOT / "build-gpu" / stem))
    b.add_argument("--build-dir", default=str(ROOT / "build"))
    b.add_argument("--toolkit", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    r = sub.add_parser("run")
    r.add_argument("--lib-dir", default=str(ROOT / "build-gpu" / stem))
    r.add_argument("--out")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--rep", type=int, default=100)
    r.add_argument("--profile", action="store_true",
                   help="also time each kernel of the plans' calls (torch.profiler)")
    args = ap.parse_args()
    return build(args) if args.cmd == "build" else run(args)


def run(args) -> int:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import triton.testing
    from bench_attention import memref, reference

    class MemRef3D(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 3),
                    ("strides", ctypes.c_int64 * 3)]

    def memref3(t):
        m = MemRef3D()
        m.allocated = m.aligned = t.data_ptr()
        for i in range(3):
            m.sizes[i], m.strides[i] = t.shape[i], t.stride(i)
        return m

    rt, lib, plans = load_library(Path(args.lib_dir), "decode")
    out_dir = Path(args.out or os.environ.get("OUT", "."))
    out_dir.mkdir(parents=True, exist_ok=True)
    dev = "cuda"
    torch.manual_seed(args.seed)

    def check_error():
        if rt.softmaxRuntimeGetLastError():
            raise RuntimeError(rt.softmaxRuntimeGetLastErrorString().decode())

    def caller(name, q, k, v, o, l=None):
        f = getattr(lib, f"_mlir_ciface_{name}")
        descs = [memref(t) for t in (q, k, v, o)] + ([memref3(l)] if l is not None else [])
        ptrs = [ctypes.byref(x) for x in descs]
        return lambda: f(*ptrs)

    def pairs_of(shape):
        b, h = shape[:2]
        every = [(i, j) for i in range(b) for j in range(h)]
        if len(every) <= 8:
            return every
        g = torch.Generator().manual_seed(1)
        pick = torch.randperm(len(every), generator=g)[:8].tolist()
        return [every[i] for i in sorted(pick)]

    def inputs(shape):
        b, h, hkv, nq, nk, d, _ = shape
        q = torch.randn(b, h, nq, d, device=dev, dtype=torch.bfloat16)
        k = torch.randn(b, hkv, nk, d, device=dev, dtype=torch.bfloat16)
        v = torch.randn(b, hkv, nk, d, device=dev, dtype=torch.bfloat16)
        return q, k, v

    results = {"cases": [], "complete": False}

    def save():
        (out_dir / "gpu_decode.json").write_text(json.dumps(results, indent=1))

    # Read bandwidth of this GPU now: a 4 GiB bf16 sum.
    x = torch.randn(2 * 1024**3, device=dev, dtype=torch.bfloat16)
    t = triton.testing.do_bench(lambda: x.sum(dtype=torch.float32), rep=200)
    read_gbs = x.numel() * 2 / (t * 1e-3) / 1e9
    y = torch.empty_like(x)
    t = triton.testing.do_bench(lambda: y.copy_(x), rep=200)
    copy_gbs = 2 * x.numel() * 2 / (t * 1e-3) / 1e9
    del x, y
    results["read_gbs"], results["copy_gbs"] = read_gbs, copy_gbs
    print(f"read {read_gbs:.0f} GB/s, copy {copy_gbs:.0f} GB/s", flush=True)

    failures = 0
    for shape_name, shape in {**CHECKS, **SHAPES}.items():
        b, h, hkv, nq, nk, d, causal = shape
        q, k, v = inputs(shape)
        pairs = pairs_of(shape)
        ref_o, ref_l = reference(q, k, v, causal, pairs, with_lse=True)
        kv_bytes = b * hkv * nk * 2 * d * 2
        variants = CHECK_VARIANTS if shape_name in CHECKS else variants_of(shape_name)
        case = {"shape": shape_name, "B": b, "H": h, "Hkv": hkv, "Nq": nq, "Nk": nk,
                "d": d, "causal": causal, "kv_bytes": kv_bytes, "kernels": {}}
        for var in variants:
            name = f"{shape_name}__{var}"
            o = torch.full_like(q, float("nan"))
            lse = (torch.full((b, h, nq), float("nan"), device=dev)
                   if shape_name in CHECKS else None)
            call = caller(name, q, k, v, o, lse)
            call()
            torch.cuda.synchronize()
            check_error()
            got = torch.stack([o[i, j] for i, j in pairs]).double()
            err = float(torch.linalg.norm(got - ref_o) / torch.linalg.norm(ref_o))
            written = not torch.isnan(o).any().item()
            entry = {"plan": plans.get(name), "rel_err": err, "all_written": written}
            if lse is not None:
                lg = torch.stack([lse[i, j] for i, j in pairs]).double()
                entry["lse_max_abs_err"] = float((lg - ref_l).abs().max())
                written = written and not torch.isnan(lse).any().item()
            ok = written and err <= 1e-2 and entry.get("lse_max_abs_err", 0) <= 1e-3
            entry["ok"] = ok
            failures += not ok
            if shape_name in SHAPES:
                ms = triton.testing.do_bench(call, rep=args.rep)
                check_error()
                entry["ms"] = ms
                entry["gbs"] = kv_bytes / (ms * 1e-3) / 1e9
                if args.profile and var in ("auto", "k33"):
                    from kernel_profile import kernel_times
                    entry["kernels_us"] = kernel_times(call)
            case["kernels"][var] = entry
            print(shape_name, var, json.dumps(entry), flush=True)
        if shape_name in SHAPES:
            # SDPA: is_causal is top-left for Nq < Nk, so the baselines run
            # without it (one row, or a few rows against long caches: the
            # same work).
            for label, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                   ("flash", SDPBackend.FLASH_ATTENTION)):
                def sd():
                    with sdpa_kernel(backend):
                        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
                try:
                    ms = triton.testing.do_bench(sd, rep=args.rep)
                    case["kernels"][label] = {"ms": ms, "gbs": kv_bytes / (ms * 1e-3) / 1e9}
                except Exception as e:  # a backend that refuses the shape
                    case["kernels"][label] = {"error": str(e)[:200]}
                print(shape_name, label, json.dumps(case["kernels"][label]), flush=True)
        results["cases"].append(case)
        save()
        del q, k, v
        torch.cuda.empty_cache()
    results["complete"] = True
    results["failures"] = failures
    save()
    lines = ["| shape | kernel | plan | ms | GB/s | of read bw | rel err |",
             "|---|---|---|---|---|---|---|"]
    for c in results["cases"]:
        for var, e in c["kernels"].items():
            if "ms" not in e:
                continue
            lines.append(f"| {c['shape']} | {var} | {e.get('plan') or ''} | {e['ms']:.4f} | "
                         f"{e['gbs']:.0f} | {e['gbs'] / read_gbs:.2f} | "
                         f"{e.get('rel_err', float('nan')):.1e} |")
    (out_dir / "gpu_decode.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"{failures} failures")
    return 1 if failures else 0


def main() -> int:
    return cli(__doc__, "decode", build, run)


if __name__ == "__main__":
    sys.exit(main())
