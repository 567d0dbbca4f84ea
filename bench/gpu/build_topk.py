#!/usr/bin/env python3
"""Builds the softmax.topk kernels the H200 benchmark times, ahead of time.

softmax.topk on memrefs with a dynamic row count and a static vocabulary,
lowered by ``softmax-opt --softmax-to-nvvm=format=bin`` (cubins + host code
calling the runtime ABI), translated and linked into ``libsoftmax_topk.so``
beside ``libsoftmax_cuda_runtime.so``: no LLVM or MLIR at run time.

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
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LLVM = Path("/usr/lib/llvm-22/bin")
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


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", default=str(ROOT / "build-gpu" / "topk"))
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--toolkit", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    args = ap.parse_args()
    build = Path(args.build_dir)
    opt = build / "bin" / "softmax-opt"
    runtime = build / "lib" / "libsoftmax_cuda_runtime.so"
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    module = out / "topk.mlir"
    module.write_text("".join(function(*kern) for kern in KERNELS))
    pipeline = f"--softmax-to-nvvm=chip=sm_90 toolkit={args.toolkit}"
    report = {}
    isa = run([str(opt), str(module), pipeline + " format=isa"]).stdout
    for m in re.finditer(r'gpu\.binary @(\w+) .*?assembly = "(.*?)"', isa, re.S):
        ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda h: chr(int(h[1], 16)), m[2])
        path = out / f"{m[1]}.ptx"
        path.write_text(ptx)
        info = run([f"{args.toolkit}/bin/ptxas", "-arch=sm_90", "-v", str(path),
                    "-o", os.devnull]).stderr
        regs = re.search(r"Used (\d+) registers", info)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", info)
        smem = re.search(r"(\d+) bytes smem", info)
        report[m[1]] = {"registers": int(regs[1]) if regs else None,
                        "spill_store_bytes": int(spill[1]) if spill else None,
                        "spill_load_bytes": int(spill[2]) if spill else None,
                        "smem_bytes": int(smem[1]) if smem else None}
    lowered = out / "topk.llvm.mlir"
    run([str(opt), str(module), pipeline + " format=bin", "-o", str(lowered)])
    ir = out / "topk.ll"
    run([str(LLVM / "mlir-translate"), "--mlir-to-llvmir", str(lowered), "-o", str(ir)])
    obj = out / "topk.o"
    run([str(LLVM / "clang"), "-c", "-O2", "-fPIC", "-Wno-override-module", str(ir),
         "-o", str(obj)])
    run(["cp", str(runtime), str(out / runtime.name)])
    run([str(LLVM / "clang"), "-shared", "-fuse-ld=lld", str(obj),
         "-o", str(out / "libsoftmax_topk.so"), f"-L{out}", "-lsoftmax_cuda_runtime",
         "-Wl,-rpath,$ORIGIN", "-Wl,--no-undefined"])
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
