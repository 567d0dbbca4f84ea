#!/usr/bin/env python3
"""Builds the softmax.topk kernels the H200 benchmark times, ahead of time.

softmax.topk on memrefs with a dynamic row count and a static vocabulary,
lowered and linked into ``libsoftmax_topk.so`` by bench/gpu/aot.py: no LLVM
or MLIR at run time.

    void _mlir_ciface_topk_<dtype>_<V>_k<k>(MemRef2D *x, MemRef2D *probs,
                                            MemRef2D *indices);   // i64
    void _mlir_ciface_topk_<dtype>_<V>_k<k>_lp(x, probs, indices, MemRef2D *logp);

Usage: python3 bench/gpu/build_topk.py [--out-dir build-gpu/topk]
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

ROOT = aot.ROOT
# (dtype, vocabulary, k, log_probs): the benchmark's shapes, then the
# check's odd ones (a prime row, a row shorter than a step, k above V).
KERNELS = [("bf16", 128256, k, False) for k in (1, 50, 1024)] + [
    ("f32", 128256, 50, False), ("bf16", 128256, 50, True),
    ("f32", 1031, 20, True), ("bf16", 100003, 64, True), ("f32", 5, 7, True),
    ("bf16", 32000, 1024, True)]


def name(dtype: str, v: int, k: int, lp: bool) -> str:
    return f"topk_{dtype}_{v}_k{k}" + ("_lp" if lp else "")


def function(dtype: str, v: int, k: int, lp: bool) -> str:
    x, p, i = f"memref<?x{v}x{dtype}>", f"memref<?x{k}xf32>", f"memref<?x{k}xi64>"
    args = f"%x: {x}, %p: {p}, %i: {i}" + (f", %l: {p}" if lp else "")
    return (f"func.func @{name(dtype, v, k, lp)}({args}) attributes {{llvm.emit_c_interface}} {{\n"
            f"  softmax.topk ins(%x : {x}) outs(%p, %i : {p}, {i})"
            + (f" log_probs(%l : {p})" if lp else "") + f" k({k})\n  return\n}}\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=str(ROOT / "build-gpu" / "topk"))
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--toolkit", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    args = ap.parse_args()
    out = Path(args.out_dir)
    report = aot.build_library("".join(function(*kern) for kern in KERNELS),
                               "softmax_topk", out, Path(args.build_dir), args.toolkit)
    (out / "kernels.json").write_text(json.dumps(
        {"kernels": [dict(zip(("dtype", "vocab", "k", "log_probs"), kern),
                          name=name(*kern)) for kern in KERNELS],
         "ptxas": report}, indent=1))
    for n, r in report.items():
        print(n, r)
    print(f"wrote {out / 'libsoftmax_topk.so'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
