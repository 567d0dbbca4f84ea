#!/usr/bin/env python3
"""Measurement-only variants of the f32 attention kernels, for A/B runs
(bench/results/gpu_attention_f32.md, run 6): softmax-map-to-gpu with
strategy options the pipeline does not take (e.g. "attention-rows-per-warp=32"),
then the rest of softmax-to-nvvm's passes as text, printing ptxas's
registers and spills per kernel, and an object to link into the benchmark
library with `build_attention.py --extra-object`.

usage: build_attention_variant.py SOFTMAX_OPT OUTDIR PREFIX "MAP OPTIONS"
"""
import os, re, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_attention as ba
opt, out, prefix, mapopts = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
text = "".join(ba.function(d, c, dtype="f32", prefix=prefix) for d in (64, 128) for c in (False, True))
mod = f"{out}/{prefix}.mlir"; open(mod, "w").write(text)
tail = ("softmax-stage-gpu-buffers,gpu-kernel-outlining,convert-linalg-to-loops,lower-affine,"
        "convert-scf-to-cf,canonicalize,cse,nvvm-attach-target{chip=sm_90 features=+ptx80 O=3},"
        "gpu.module(convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,canonicalize,cse,reconcile-unrealized-casts),"
        "arith-expand{include-bf16=true},expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
        "gpu-to-llvm,gpu-module-to-binary{format=%s toolkit=/usr/local/cuda},convert-to-llvm,canonicalize,"
        "cse,reconcile-unrealized-casts")
mapped = subprocess.run([opt, mod, f"--softmax-map-to-gpu=chip=sm_90 {mapopts}"], capture_output=True, text=True, check=True).stdout
isa = subprocess.run([opt, f"--pass-pipeline=builtin.module({tail % 'isa'})"], input=mapped, capture_output=True, text=True, check=True).stdout
for m in re.finditer(r'gpu\.binary @(\w+) .*?assembly = "(.*?)"', isa, re.S):
    ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda h: chr(int(h[1], 16)), m[2])
    p = f"{out}/{m[1]}.ptx"; open(p, "w").write(ptx)
    info = subprocess.run(["/usr/local/cuda/bin/ptxas", "-arch=sm_90", "-v", p, "-o", os.devnull], capture_output=True, text=True).stderr
    r = re.search(r"Used (\d+) registers", info); sp = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", info)
    print(m[1], r[1], sp.group(1), sp.group(2))
binm = subprocess.run([opt, f"--pass-pipeline=builtin.module({tail % 'bin'})", "-o", f"{out}/{prefix}.llvm.mlir"], input=mapped, capture_output=True, text=True, check=True)
subprocess.run(["/usr/lib/llvm-22/bin/mlir-translate", "--mlir-to-llvmir", f"{out}/{prefix}.llvm.mlir", "-o", f"{out}/{prefix}.ll"], check=True)
subprocess.run(["/usr/lib/llvm-22/bin/clang", "-c", "-O2", "-fPIC", "-Wno-override-module", f"{out}/{prefix}.ll", "-o", f"{out}/{prefix}.o"], check=True)
print("wrote", f"{out}/{prefix}.o")
