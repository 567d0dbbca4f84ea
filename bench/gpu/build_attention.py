#!/usr/bin/env python3
"""Builds the attention kernels the H200 benchmark times, ahead of time.

softmax.attention on bf16 memrefs with dynamic batch, heads, kv heads and
sequence lengths and a static head dimension, causal or not, lowered by
``softmax-opt --softmax-to-nvvm=format=bin`` (cubins + host code calling the
runtime ABI), translated and linked into ``libsoftmax_attention.so`` beside
``libsoftmax_cuda_runtime.so``: no LLVM or MLIR at run time.

    void _mlir_ciface_attention_d<D>[_causal](MemRef4D *q, MemRef4D *k,
                                              MemRef4D *v, MemRef4D *o);
    void _mlir_ciface_attention_d64_addmask(q, k, v, MemRef4D *f32 mask, o);
    void _mlir_ciface_attention_d64_causal_boolmask(q, k, v, MemRef4D *i1 mask, o);

With --skip, also thresholded kernels (skip tile [32, 64], one lambda per
batch entry, the live and skipped pair counts; _s4, _s16 and _s64: the
keys split 4, 16 and 64 ways, d 128 only; _tma_b128: the block tile
[128, 64], 4 warps voting together; with --wgmma, _wg ([16, 64]), _wg64
([64, 64], one warpgroup) and _wg128 ([128, 64], two); "_nc" after the
name of a d 128 _tma, _tma_b128, _wg or _wg64 kernel: without the counts
operand; "_wk" after _wg, _wg64 or _wg128: skip_values = with_keys):

    void _mlir_ciface_attention_skip_d<D>[_causal](q, k, v, MemRef1D *f32 lambda,
                                                   o, MemRef1D *i64 counts);

With --f32, also f32 kernels (same signatures, f32 memrefs):
attention_f32_d<D>[_causal] and attention_f32_d64_addmask (the exact
default, 3xTF32) and attention_tf32_d<D>[_causal]
(attention-f32-precision=tf32).

Usage: python3 bench/gpu/build_attention.py [--out-dir build-gpu/attention] [--f32]
Also writes kernels.json (registers and spills from ptxas -v).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aot  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HEAD_DIMS = (64, 128)


# Two buffers with K/V tiles by TMA (the decode copy), for the prefill
# kernels of --skip: `attention_tma_*` and `attention_skip_*_tma`.
TMA_REQUEST = "buffers = 2, tile_copy = tma"
# Thresholded kernels whose V comes with K (the dense schedule).
WITH_KEYS = ("skip_values = with_keys",)


def function(d: int, causal: bool, mask: str | None = None, dtype: str = "bf16",
             prefix: str = "attention", request: str = "") -> str:
    t = f"memref<?x?x?x{d}x{dtype}>"
    name = f"{prefix}_d{d}" + ("_causal" if causal else "") + (f"_{mask}mask" if mask else "")
    attr = (f" {{softmax.strategy = #softmax.attention_gpu_strategy<{request}>}}"
            if request else "")
    if not mask:
        return (f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}, %o: {t}) "
                f"attributes {{llvm.emit_c_interface}} {{\n"
                f"  softmax.attention ins(%q, %k, %v : {t}, {t}, {t}) outs(%o : {t}) "
                f"masked(zero){' causal' if causal else ''}{attr}\n  return\n}}\n")
    # add: f32, one per (batch, head); bool: i1; headbcast_add: bf16, one
    # per batch, broadcast over heads (what SDPA callers usually pass).
    mt = {"add": "memref<?x?x?x?xf32>", "bool": "memref<?x?x?x?xi1>",
          "headbcast_add": "memref<?x1x?x?xbf16>"}[mask]
    return (f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}, %m: {mt}, %o: {t}) "
            f"attributes {{llvm.emit_c_interface}} {{\n"
            f"  softmax.attention ins(%q, %k, %v, %m : {t}, {t}, {t}, {mt}) outs(%o : {t}) "
            f"masked(zero){' causal' if causal else ''}\n  return\n}}\n")


def skip_function(d: int, causal: bool, splits: int = 1, tma: bool = False,
                  rows: int = 32, suffix: str = "", fields: tuple = (),
                  counts: bool = True) -> str:
    """A thresholded kernel; without `counts` (name + "_nc") it takes no
    counts operand: the machinery's own cost with nothing skipped."""
    t = f"memref<?x?x?x{d}xbf16>"
    name = (f"attention_skip_d{d}" + (f"_s{splits}" if splits > 1 else "")
            + ("_causal" if causal else "") + ("_tma" if tma else "") + suffix
            + ("" if counts else "_nc"))
    fields = (([f"key_splits = {splits}"] if splits > 1 else []) + ([TMA_REQUEST] if tma else [])
              + list(fields))
    request = (f" {{softmax.strategy = #softmax.attention_gpu_strategy<{', '.join(fields)}>}}"
               if fields else "")
    return (f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}, %t: memref<?xf32>, %o: {t}"
            + (", %n: memref<2xi64>" if counts else "")
            + f") attributes {{llvm.emit_c_interface}} {{\n"
            f"  softmax.attention ins(%q, %k, %v : {t}, {t}, {t}) outs(%o : {t}) "
            f"masked(zero){' causal' if causal else ''} "
            f"skip(lambda %t : memref<?xf32>, tile [{rows}, 64])"
            + (" skip_counts(%n : memref<2xi64>)" if counts else "")
            + f"{request}\n  return\n}}\n")


def f32_module(precision: str) -> str:
    """f32 kernels, attention_f32_* (exact) or attention_tf32_*."""
    prefix = "attention_f32" if precision == "exact" else "attention_tf32"
    text = "".join(function(d, c, dtype="f32", prefix=prefix)
                   for d in HEAD_DIMS for c in (False, True))
    if precision == "exact":
        text += function(64, False, "add", dtype="f32", prefix=prefix)
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=str(ROOT / "build-gpu" / "attention"))
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--toolkit", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    ap.add_argument("--f32", action="store_true",
                    help="also build f32 kernels: attention_f32_* (the exact default) "
                         "and attention_tf32_* (attention-f32-precision=tf32)")
    ap.add_argument("--skip", action="store_true",
                    help="also build thresholded kernels: attention_skip_*")
    ap.add_argument("--wgmma", action="store_true",
                    help="also build sm_90a kernels whose scores run on wgmma: "
                         "attention_wg_* (dense, 16 rows a warp, two TMA buffers) "
                         "and attention_skip_*_wg[64|128] (skip tiles [16|64|128, 64])")
    ap.add_argument("--extra-object", action="append", default=[],
                    help="another object to link into the library (a variant built "
                         "by hand for a measurement)")
    args = ap.parse_args()
    build = Path(args.build_dir)
    out = Path(args.out_dir)
    # (stem, module, extra softmax-to-nvvm options): one object each, all
    # linked into the one library.
    units = [("attention",
              "".join(function(d, c) for d in HEAD_DIMS for c in (False, True))
              + function(64, False, "add") + function(64, True, "bool")
              + "".join(function(d, False, "headbcast_add") for d in HEAD_DIMS), "")]
    if args.skip:
        # Split-KV decode kernels (d 128): 4, 16 and 64 splits.
        units.append(("attention_skip", "".join(skip_function(d, c) for d in HEAD_DIMS
                                                for c in (False, True))
                      + "".join(skip_function(128, c, s) for s in (4, 16, 64)
                                for c in (False, True))
                      + "".join(skip_function(d, c, tma=True) for d in HEAD_DIMS
                                for c in (False, True))
                      + "".join(skip_function(128, c, s, tma=True) for s in (4, 16, 64)
                                for c in (False, True))
                      # Block tiles: the 4 warps of 32 rows vote together.
                      + "".join(skip_function(d, c, tma=True, rows=128, suffix="_b128")
                                for d in HEAD_DIMS for c in (False, True))
                      # Without counts (_nc), d 128: the warp and block tiles.
                      + "".join(skip_function(128, c, tma=True, rows=r, suffix=x,
                                              counts=False)
                                for c in (False, True) for r, x in ((32, ""), (128, "_b128")))
                      + "".join(function(d, c, prefix="attention_tma", request=TMA_REQUEST)
                                for d in HEAD_DIMS for c in (False, True)), ""))
    if args.wgmma:
        units.append(("attention_wg",
                      "".join(function(d, c, prefix="attention_wg",
                                       request="rows_per_warp = 16, " + TMA_REQUEST)
                              for d in HEAD_DIMS for c in (False, True))
                      + "".join(skip_function(d, c, rows=16, suffix="_wg")
                                for d in HEAD_DIMS for c in (False, True))
                      # Block tiles: one warpgroup (4 warps of 16 rows), or
                      # two (8 warps, the causal d 128 dense kernel's block).
                      + "".join(skip_function(d, c, rows=64, suffix="_wg64")
                                for d in HEAD_DIMS for c in (False, True))
                      + "".join(skip_function(128, c, rows=128, suffix="_wg128",
                                              fields=("rows_per_warp = 16",))
                                for c in (False, True))
                      + "".join(skip_function(128, c, rows=r, suffix=x, counts=False)
                                for c in (False, True) for r, x in ((16, "_wg"), (64, "_wg64")))
                      # skip_values = with_keys (_wk): V with K, as the dense
                      # kernel requests it.
                      + "".join(skip_function(d, c, rows=r, suffix=x + "_wk",
                                              fields=WITH_KEYS + f)
                                for d in HEAD_DIMS for c in (False, True)
                                for r, x, f in ((16, "_wg", ()), (64, "_wg64", ()),
                                                (128, "_wg128", ("rows_per_warp = 16",)))
                                if d == 128 or r < 128)
                      + "".join(skip_function(128, c, rows=r, suffix=x + "_wk",
                                              fields=WITH_KEYS, counts=False)
                                for c in (False, True) for r, x in ((16, "_wg"), (64, "_wg64"))),
                      "", "sm_90a"))
    if args.f32:
        units += [("attention_f32", f32_module("exact"), " attention-f32-precision=exact"),
                  ("attention_tf32", f32_module("tf32"), " attention-f32-precision=tf32")]
    report = {}
    objects = []
    for stem, text, extra, *chip in units:
        obj, figures = aot.compile_unit(text, stem, out, build, args.toolkit, extra,
                                        chip=chip[0] if chip else "sm_90")
        objects.append(obj)
        report.update(figures)
    aot.link(objects + args.extra_object, "softmax_attention", out, build)
    (out / "kernels.json").write_text(json.dumps(report, indent=1))
    for name, r in report.items():
        print(name, r)
    print(f"wrote {out / 'libsoftmax_attention.so'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
