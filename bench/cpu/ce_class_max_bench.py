#!/usr/bin/env python3
"""CPU benchmark of softmax.linear_cross_entropy_grad with and without the
forward's class_max, side by side in one JIT module and one process (only
the ratio within the run means anything on the CPU).

@main runs the forward once (lse and class_max), then times `--reps` calls
of the gradient without class_max and with it (after one warm-up call
each), through ``softmax-opt --softmax-to-cpu=threads=1``. Both must give
the same bits and the same tile and filtered counts; the class_max variant
also reports how many tiles it filtered before recomputing their logits.

Inputs, f32, filter 2^-12, tiles of 64 tokens by 256 classes (the GPU's
group width): `zipf` (language-model-like: h = 14 w[t] + sum of 8
alternatives at 13, 12.5, ... + N(0, 1), targets and alternatives drawn by
Zipf's law over the ids, every 17th token ignored; as
bench/gpu/bench_cross_entropy_grad.py's zipf_inputs) and `flat` (h = 10
w[t] + N(0, 1), uniform targets: the forward benchmark's generator).

    python3 bench/cpu/ce_class_max_bench.py --softmax-opt build/bin/softmax-opt
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
from softmax_mlir.errors import SoftmaxMLIRError  # noqa: E402
from softmax_mlir.runtime import parse_prints, run_cpu  # noqa: E402
from softmax_mlir.tools import runner_libs  # noqa: E402


def hexf(a):
    return '"0x' + np.ascontiguousarray(a, dtype="<f4").tobytes().hex().upper() + '"'


def inputs(kind: str, n: int, d: int, v: int, rng):
    w = rng.standard_normal((v, d)) / np.sqrt(d)
    if kind == "zipf":
        p = 1.0 / np.arange(1, v + 1)
        ids = rng.choice(v, size=(n, 9), p=p / p.sum())
        t = ids[:, 0].copy()
        h = 14.0 * w[t] + rng.standard_normal((n, d))
        for c in range(8):
            h += (13.0 - 0.5 * c) * w[ids[:, c + 1]]
    else:
        t = rng.integers(0, v, size=n)
        h = 10.0 * w[t] + rng.standard_normal((n, d))
    t[::17] = -100
    return h.astype(np.float32), w.astype(np.float32), t.astype(np.int64)


def module(h, w, t, reps: int, filt: float, token_tile: int) -> str:
    n, d = h.shape
    v = w.shape[0]
    g = -(-v // 256)
    ht, wt, tt = f"tensor<{n}x{d}xf32>", f"tensor<{v}x{d}xf32>", f"tensor<{n}xi64>"
    st, ct = f"tensor<{n}xf32>", f"tensor<{n}x{g}xf32>"
    tiles = f"vocab_tile(256) token_tile({token_tile})"

    def grad(name, with_max):
        nc = 3 if with_max else 2
        cm_in = f", %cm: {ct}" if with_max else ""
        cm_use = f" class_max(%cm : {ct})" if with_max else ""
        return (f"func.func @{name}(%h: {ht}, %w: {wt}, %t: {tt}, %lse: {st}{cm_in}) -> "
                f"({ht}, {wt}, tensor<{nc}xi64>) {{\n"
                f"  %dl = arith.constant dense<1.0> : tensor<f32>\n"
                f"  %gh0 = tensor.empty() : {ht}\n  %gw0 = tensor.empty() : {wt}\n"
                f"  %n0 = tensor.empty() : tensor<{nc}xi64>\n"
                f"  %gh, %gw, %n = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : "
                f"{ht}, {wt}, {tt}, {st}, tensor<f32>){cm_use} outs(%gh0, %gw0 : {ht}, {wt}) "
                f"filter_counts(%n0 : tensor<{nc}xi64>) reduction(mean) filter({filt!r}) {tiles}\n"
                f"  return %gh, %gw, %n : {ht}, {wt}, tensor<{nc}xi64>\n}}\n")

    def show(val, shape, elt):
        mt = "memref<" + "x".join(map(str, shape)) + f"x{elt}>"
        tt_ = "tensor<" + "x".join(map(str, shape)) + f"x{elt}>"
        k = val.strip("%#").replace("#", "_")
        fn = "printMemrefF32" if elt == "f32" else "printMemrefI64"
        return [f"%m_{k} = bufferization.to_buffer {val} : {tt_} to {mt}",
                f"%u_{k} = memref.cast %m_{k} : {mt} to memref<*x{elt}>",
                f"call @{fn}(%u_{k}) : (memref<*x{elt}>) -> ()"]

    body = [f"%h = arith.constant dense<{hexf(h)}> : {ht}",
            f"%w = arith.constant dense<{hexf(w)}> : {wt}",
            f'%t = arith.constant dense<"0x{t.astype("<i8").tobytes().hex().upper()}"> : {tt}',
            "%l0 = tensor.empty() : tensor<f32>", f"%s0 = tensor.empty() : {st}",
            f"%cm0 = tensor.empty() : {ct}",
            f"%loss, %lse, %cm = softmax.linear_cross_entropy ins(%h, %w, %t : {ht}, {wt}, {tt}) "
            f"outs(%l0 : tensor<f32>) lse(%s0 : {st}) class_max(%cm0 : {ct}) reduction(mean)"]
    calls = {"plain": f"call @plain(%h, %w, %t, %lse) : ({ht}, {wt}, {tt}, {st}) -> "
                      f"({ht}, {wt}, tensor<2xi64>)",
             "cm": f"call @cm(%h, %w, %t, %lse, %cm) : ({ht}, {wt}, {tt}, {st}, {ct}) -> "
                   f"({ht}, {wt}, tensor<3xi64>)"}
    for name, call in calls.items():
        nc = 3 if name == "cm" else 2
        body.append(f"%r_{name}:3 = {call}")
        body += show(f"%r_{name}#0", (n, d), "f32") + show(f"%r_{name}#1", (v, d), "f32") \
            + show(f"%r_{name}#2", (nc,), "i64")
        for r in range(reps):
            body += [f"%a_{name}_{r} = call @rtclock() : () -> f64",
                     f"%x_{name}_{r}:3 = {call}",
                     f"%b_{name}_{r} = call @rtclock() : () -> f64",
                     f"%d_{name}_{r} = arith.subf %b_{name}_{r}, %a_{name}_{r} : f64",
                     f"call @printF64(%d_{name}_{r}) : (f64) -> ()",
                     "call @printNewline() : () -> ()"]
    return "\n".join(
        ["func.func private @rtclock() -> f64", "func.func private @printF64(f64)",
         "func.func private @printNewline()",
         "func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}",
         "func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}",
         grad("plain", False), grad("cm", True),
         "func.func @main() {", "  " + "\n  ".join(body), "  return", "}"])


def parse(text: str, reps: int):
    """Per variant: gh, gw (values), counts, median time."""
    items = iter(parse_prints(text))
    out = []
    for _ in range(2):
        gh, gw, counts = next(items), next(items), next(items)
        times = [next(items) for _ in range(reps)]
        out.append((gh.data, gw.data, [int(x) for x in counts.data],
                    float(np.median(times))))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--softmax-opt", default="build/bin/softmax-opt")
    ap.add_argument("--mlir-runner", default="/usr/lib/llvm-22/bin/mlir-runner")
    ap.add_argument("--libdir", default="/usr/lib/llvm-22/lib")
    ap.add_argument("--shape", default="32,1024,32768", help="N,D,V")
    ap.add_argument("--inputs", default="zipf,flat")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--token-tile", type=int, default=64)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    n, d, v = (int(x) for x in args.shape.split(","))
    print(f"N {n}, D {d}, V {v}, f32, filter 2^-12, tiles {args.token_tile} x 256, threads 1, "
          f"median of {args.reps} calls")
    print("| inputs | tiles | filtered | before recomputing | without class_max ms | "
          "with ms | speedup | same output |")
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    for kind in args.inputs.split(","):
        h, w, t = inputs(kind, n, d, v, np.random.default_rng(args.seed))
        try:
            out = run_cpu(module(h, w, t, args.reps, 2.0 ** -12, args.token_tile),
                          tool=args.softmax_opt, runner=args.mlir_runner,
                          shared_libs=runner_libs(libdir=args.libdir), extra_args=("-O3",))
        except SoftmaxMLIRError as e:
            print(str(e)[-3000:])
            return 1
        (gh0, gw0, c0, t0), (gh1, gw1, c1, t1) = parse(out, args.reps)
        same = gh0 == gh1 and gw0 == gw1 and c0 == c1[:2]
        ok &= same and c1[2] <= c1[1]
        print(f"| {kind} | {c1[0]} | {c1[1]} ({100 * c1[1] / c1[0]:.1f}%) | "
              f"{c1[2]} ({100 * c1[2] / c1[0]:.1f}%) | {1e3 * t0:.1f} | {1e3 * t1:.1f} | "
              f"{t0 / t1:.2f}x | {'yes' if same else 'NO'} |", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
