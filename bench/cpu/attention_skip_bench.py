#!/usr/bin/env python3
"""CPU benchmark of softmax.attention's skip threshold: our vector kernel
without a threshold (dense), with a threshold that skips nothing (the cost of
the test alone), and with thresholds that skip, side by side in one JIT
module and one process, so that only ratios within the run mean anything.

Each variant is its own function, compiled by ``softmax-opt
--softmax-to-cpu=vector-width=W threads=1`` and timed with ``rtclock`` around
``--reps`` calls after one warm-up call; the median is reported. Inputs:
structured (python/softmax_mlir/structured.py, peaked rows) and the trained
model's sample (test/Integration/data/blasst). Every variant's output is
checked against float64 dense attention (its error is reported) and its
skip counts are printed.

    python3 bench/cpu/attention_skip_bench.py --softmax-opt build/bin/softmax-opt
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
from softmax_mlir.calibrate import dense_attention  # noqa: E402
from softmax_mlir.errors import SoftmaxMLIRError  # noqa: E402
from softmax_mlir.runtime import parse_prints, run_cpu  # noqa: E402
from softmax_mlir.tools import runner_libs  # noqa: E402
from softmax_mlir.structured import structured_qkv  # noqa: E402


def hexf(a):
    return '"0x' + np.ascontiguousarray(a, dtype="<f4").tobytes().hex().upper() + '"'


def tt(shape, e="f32"):
    return "tensor<" + "x".join(map(str, shape)) + f"x{e}>"


def variant(name, shape_q, shape_k, shape_v, lam, lanes):
    """func @name(q, k, v) -> (o, counts): causal attention, with
    skip(lambda, tile [1, lanes]) unless lam is None."""
    os_ = shape_q[:3] + shape_v[3:]
    skip = ""
    ret = f"{tt(os_)}"
    if lam is not None:
        bits = np.array([lam], dtype="<f4").view("<u4")[0]
        skip = (f" skip(lambda %t : f32, tile [1, {lanes}]) "
                f"skip_counts(%n0 : tensor<2xi64>)")
        ret += ", tensor<2xi64>"
    lines = [f"func.func @{name}(%q: {tt(shape_q)}, %k: {tt(shape_k)}, %v: {tt(shape_v)}) -> ({ret}) {{",
             f"  %o0 = tensor.empty() : {tt(os_)}"]
    if lam is not None:
        lines += [f"  %t = arith.constant 0x{bits:08X} : f32",
                  "  %n0 = tensor.empty() : tensor<2xi64>"]
    res = "%o, %n" if lam is not None else "%o"
    lines += [f"  {res} = softmax.attention ins(%q, %k, %v : {tt(shape_q)}, {tt(shape_k)}, "
              f"{tt(shape_v)}) outs(%o0 : {tt(os_)}) masked(zero) causal{skip}",
              f"  return {res} : {ret}", "}"]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--softmax-opt", required=True)
    ap.add_argument("--mlir-runner", default="/usr/lib/llvm-22/bin/mlir-runner")
    ap.add_argument("--libdir", default="/usr/lib/llvm-22/lib")
    ap.add_argument("--vector-width", type=int, default=16)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--n", type=int, default=2048)
    args = ap.parse_args()
    rng = np.random.default_rng(20261201)
    w = args.vector_width
    inputs = {
        f"structured-H2-N{args.n}-d64": structured_qkv(rng, 1, 2, 2, args.n, args.n, 64, 64,
                                                      peak=8.0),
        "model-layer3-H2-N512-d128": tuple(
            np.load(os.path.join(ROOT, "test", "Integration", "data", "blasst",
                                 f"{x}_layer3.npy")).astype(np.float32)[None] for x in "qkv"),
    }
    lams = [None, 1e-30, 1e-4, 1e-3, 1e-2]
    funcs, body, order = [], [], []
    for si, (sname, (q, k, v)) in enumerate(inputs.items()):
        body += [f"%q{si} = arith.constant dense<{hexf(q)}> : {tt(q.shape)}",
                 f"%k{si} = arith.constant dense<{hexf(k)}> : {tt(k.shape)}",
                 f"%v{si} = arith.constant dense<{hexf(v)}> : {tt(v.shape)}"]
        for li, lam in enumerate(lams):
            fname = f"f{si}_{li}"
            funcs.append(variant(fname, q.shape, k.shape, v.shape, lam, w))
            order.append((sname, lam, q.shape, v.shape))
            res = f"%r{si}_{li}" + (":2" if lam is not None else "")
            ret = tt(q.shape[:3] + v.shape[3:]) + (", tensor<2xi64>" if lam is not None else "")
            call = (f"call @{fname}(%q{si}, %k{si}, %v{si}) : ({tt(q.shape)}, {tt(k.shape)}, "
                    f"{tt(v.shape)}) -> ({ret})")
            first = f"%r{si}_{li}#0" if lam is not None else f"%r{si}_{li}"
            os_ = q.shape[:3] + v.shape[3:]
            mt = "memref<" + "x".join(map(str, os_)) + "xf32>"
            body += [f"{res} = {call}",
                     f"%m{si}_{li} = bufferization.to_buffer {first} : {tt(os_)} to {mt}",
                     f"%u{si}_{li} = memref.cast %m{si}_{li} : {mt} to memref<*xf32>",
                     f"call @printMemrefF32(%u{si}_{li}) : (memref<*xf32>) -> ()"]
            if lam is not None:
                body += [f"%nm{si}_{li} = bufferization.to_buffer %r{si}_{li}#1 : tensor<2xi64> to memref<2xi64>",
                         f"%nu{si}_{li} = memref.cast %nm{si}_{li} : memref<2xi64> to memref<*xi64>",
                         f"call @printMemrefI64(%nu{si}_{li}) : (memref<*xi64>) -> ()"]
            for rep in range(args.reps):
                body += [f"%t0_{si}_{li}_{rep} = call @rtclock() : () -> f64",
                         f"%x{si}_{li}_{rep}{':2' if lam is not None else ''} = {call}",
                         f"%t1_{si}_{li}_{rep} = call @rtclock() : () -> f64",
                         f"%dt{si}_{li}_{rep} = arith.subf %t1_{si}_{li}_{rep}, %t0_{si}_{li}_{rep} : f64",
                         f"call @printF64(%dt{si}_{li}_{rep}) : (f64) -> ()",
                         "call @printNewline() : () -> ()"]
    module = "\n".join(
        ["func.func private @rtclock() -> f64",
         "func.func private @printF64(f64)", "func.func private @printNewline()",
         "func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}",
         "func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}"]
        + funcs + ["func.func @main() {", "  " + "\n  ".join(body), "  return", "}"])
    try:
        text = run_cpu(module, vector_width=w, tool=args.softmax_opt, runner=args.mlir_runner,
                       shared_libs=runner_libs(libdir=args.libdir), extra_args=("-O3",))
    except SoftmaxMLIRError as e:
        print(str(e)[-3000:])
        return 1
    # In program order, per variant: the output memref, the counts, the
    # times.
    items = iter(parse_prints(text))
    records = []
    for sname, lam, qs, vs in order:
        o = np.array(next(items).data)
        n = [int(x) for x in next(items).data] if lam is not None else None
        ts = [next(items) for _ in range(args.reps)]
        records.append((sname, lam, o, n, float(np.median(ts))))
    print(f"vector width {w}, threads 1, median of {args.reps} calls")
    print("| input | lambda | live | skipped | sparsity | time (ms) | speedup vs dense | rel err vs f64 |")
    print("|---|---|---|---|---|---|---|---|")
    dense_t = {}
    for sname, lam, o, n, t in records:
        q, k, v = inputs[sname]
        ref, _ = dense_attention(q[0], k[0], v[0], causal=True)
        o = o.reshape(ref.shape)
        err = float((np.abs(o - ref).max(axis=-1) / np.abs(ref).max(axis=-1)).max())
        if lam is None:
            dense_t[sname] = t
        live, sk = n if n else (0, 0)
        lam_s = "none (dense)" if lam is None else f"{lam:g}"
        sp = f"{sk / live:.3f}" if n and live else "-"
        print(f"| {sname} | {lam_s} | {live if n else '-'} | {sk if n else '-'} | {sp} | "
              f"{1e3 * t:.2f} | {dense_t[sname] / t:.2f}x | {err:.2e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
