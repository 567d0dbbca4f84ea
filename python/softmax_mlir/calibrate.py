"""Calibration of softmax.attention's skip threshold on sample Q/K/V.

Runs the project's own CPU kernel (``softmax-to-cpu vector-width=0``: the
key-tiled decomposition, the reference every target's skipping must match)
on prefixes of a sample for a sweep of lambdas, and measures what each
lambda skips and costs against the dense float64 attention:

* tile sparsity: skipped / live (query tile, key tile) pairs, from the op's
  ``skip_counts``;
* output relative error: per row ``max |o - dense| / max |dense|``, the
  largest over rows;
* row KL: ``KL(p_skip || p_dense) = lse_dense - lse_skip`` (the skipped
  probability mass ``e`` gives ``-ln(1 - e)``), mean and largest over rows.

It then fits TensorRT-LLM's form ``lambda = a / L`` by least squares across
the lengths L (each length contributes the largest swept lambda whose error
stays under ``--max-rel-err``), and the sparsity-targeted form ``lambda =
a exp(b s)`` over every swept point, and reports which fits the data with
the smaller RMS residual in ln(lambda). The JSON it writes holds the sweep,
both fits, and ``operand``: the ``skip(scale_factor %a ...)`` operand the
kernels take, with the tile it was measured at (sparsity depends on it).

Command::

    python3 -m softmax_mlir.calibrate --q q.npy --k k.npy --v v.npy \\
        --tile 1,16 --lengths 128,256,512 --out calib.json

Q, K, V are ``[H, N, D]`` (or ``[N, D]``, one head), any float dtype; the
attention is causal unless ``--no-causal``. Needs numpy.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence

import numpy as np

from .runtime import run_cpu

DEFAULT_LAMBDAS = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)


def _dense_hex(a: np.ndarray) -> str:
    return '"0x' + np.ascontiguousarray(a, dtype="<f4").tobytes().hex().upper() + '"'


def _ttype(shape: Sequence[int], elt: str) -> str:
    return "tensor<" + "x".join(map(str, shape)) + f"x{elt}>"


def _print_f32(val: str, shape: Sequence[int], tag: str) -> str:
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    amap = f"affine_map<({dims}) -> ({dims})>"
    its = ", ".join(['"parallel"'] * rank)
    it, mt = _ttype(shape, "i32"), "memref<" + "x".join(map(str, shape)) + "xi32>"
    return (f"%e_{tag} = tensor.empty() : {it}\n"
            f"  %b_{tag} = linalg.generic {{indexing_maps = [{amap}, {amap}], "
            f"iterator_types = [{its}]}} ins({val} : {_ttype(shape, 'f32')}) "
            f"outs(%e_{tag} : {it}) {{\n  ^bb0(%a: f32, %o: i32):\n"
            f"    %c = arith.bitcast %a : f32 to i32\n    linalg.yield %c : i32\n  }} -> {it}\n"
            f"  %m_{tag} = bufferization.to_buffer %b_{tag} : {it} to {mt}\n"
            f"  %u_{tag} = memref.cast %m_{tag} : {mt} to memref<*xi32>\n"
            f"  call @printMemrefI32(%u_{tag}) : (memref<*xi32>) -> ()")


def _module(q, k, v, lambdas, tile, causal) -> str:
    """One attention op per lambda on the same inputs (one JIT for all)."""
    h, n, d = q.shape
    dv = v.shape[-1]
    qs, ks, vs, os_ = (1, h, n, d), (1, h, n, d), (1, h, n, dv), (1, h, n, dv)
    lines = [f"%q = arith.constant dense<{_dense_hex(q)}> : {_ttype(qs, 'f32')}",
             f"%k = arith.constant dense<{_dense_hex(k)}> : {_ttype(ks, 'f32')}",
             f"%v = arith.constant dense<{_dense_hex(v)}> : {_ttype(vs, 'f32')}"]
    attrs = "masked(zero)" + (" causal" if causal else "")
    for i, lam in enumerate(lambdas):
        bits = np.array([lam], dtype="<f4").view("<u4")[0]
        lines += [
            f"%t{i} = arith.constant 0x{bits:08X} : f32",
            f"%o0_{i} = tensor.empty() : {_ttype(os_, 'f32')}",
            f"%l0_{i} = tensor.empty() : {_ttype(os_[:3], 'f32')}",
            f"%n0_{i} = tensor.empty() : tensor<2xi64>",
            f"%o{i}, %l{i}, %n{i} = softmax.attention ins(%q, %k, %v : {_ttype(qs, 'f32')}, "
            f"{_ttype(ks, 'f32')}, {_ttype(vs, 'f32')}) outs(%o0_{i}, %l0_{i} : "
            f"{_ttype(os_, 'f32')}, {_ttype(os_[:3], 'f32')}) {attrs} "
            f"skip(lambda %t{i} : f32, tile [{tile[0]}, {tile[1]}]) "
            f"skip_counts(%n0_{i} : tensor<2xi64>)",
            _print_f32(f"%o{i}", os_, f"o{i}"),
            _print_f32(f"%l{i}", os_[:3], f"l{i}"),
            f"%nm{i} = bufferization.to_buffer %n{i} : tensor<2xi64> to memref<2xi64>",
            f"%nu{i} = memref.cast %nm{i} : memref<2xi64> to memref<*xi64>",
            f"call @printMemrefI64(%nu{i}) : (memref<*xi64>) -> ()",
        ]
    return ("func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}\n"
            "func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}\n"
            "func.func @main() {\n  " + "\n  ".join(lines) + "\n  return\n}\n")


def dense_attention(q, k, v, causal: bool):
    """float64 (o [H, N, Dv], lse [H, N])."""
    n, d = q.shape[1], q.shape[2]
    s = np.einsum("hid,hjd->hij", q.astype(np.float64), k.astype(np.float64))
    s *= float(np.float32(1.0 / np.sqrt(d)))
    if causal:
        s = np.where(np.arange(n)[None, :] <= np.arange(n)[:, None], s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    p = np.exp(s - m)
    l = p.sum(axis=-1)
    return np.einsum("hij,hjd->hid", p, v.astype(np.float64)) / l[..., None], \
        m[..., 0] + np.log(l)


def sweep(q, k, v, lambdas: Sequence[float], tile: tuple[int, int], causal: bool,
          **run_options) -> list[dict]:
    """Runs the kernel once per lambda on (q, k, v) [H, N, D]; returns one
    record per lambda."""
    text = run_cpu(_module(q, k, v, lambdas, tile, causal), vector_width=0, **run_options)
    blocks = [[int(x) for x in re.findall(r"-?\d+", b.split("data =", 1)[1])]
              for b in re.split(r"Unranked Memref", text)[1:]]
    h, n, dv = q.shape[0], q.shape[1], v.shape[-1]
    dense_o, dense_l = dense_attention(q, k, v, causal)
    norm = np.maximum(np.abs(dense_o).max(axis=-1), 1e-30)
    out = []
    for i, lam in enumerate(lambdas):
        f32 = lambda b: np.array(b, dtype=np.int64).astype(np.int32).view(np.float32)
        o = f32(blocks[3 * i]).reshape(h, n, dv).astype(np.float64)
        lse = f32(blocks[3 * i + 1]).reshape(h, n).astype(np.float64)
        live, skipped = blocks[3 * i + 2]
        kl = np.maximum(dense_l - lse, 0.0)
        out.append({"length": n, "lambda": lam, "live": live, "skipped": skipped,
                    "sparsity": skipped / live if live else 0.0,
                    "rel_err": float((np.abs(o - dense_o).max(axis=-1) / norm).max()),
                    "row_kl_mean": float(kl.mean()), "row_kl_max": float(kl.max())})
    return out


def fit(records: list[dict], max_rel_err: float) -> dict:
    """Both fits of the sweep (see the module docstring)."""
    lengths = sorted({r["length"] for r in records})
    best = {}
    for n in lengths:
        ok = [r["lambda"] for r in records if r["length"] == n and r["rel_err"] <= max_rel_err]
        if ok:
            best[n] = max(ok)
    result: dict = {"max_rel_err": max_rel_err,
                    "best_lambda_per_length": {str(n): lam for n, lam in best.items()}}
    if best:
        ls = np.array(list(best), dtype=np.float64)
        lam = np.array(list(best.values()))
        # min_a sum (lambda_L - a / L)^2.
        a = float((lam / ls).sum() / (1.0 / ls ** 2).sum())
        res = np.log(lam) - np.log(a / ls)
        result["scale_factor"] = {"a": a, "rms_log_residual": float(np.sqrt((res ** 2).mean()))}
    pts = [(r["sparsity"], r["lambda"]) for r in records if r["sparsity"] > 0]
    if len(pts) >= 2:
        s = np.array([p[0] for p in pts])
        y = np.log([p[1] for p in pts])
        b, lna = np.polyfit(s, y, 1)
        res = y - (lna + b * s)
        result["sparsity_form"] = {"a": float(math.exp(lna)), "b": float(b),
                                   "rms_log_residual": float(np.sqrt((res ** 2).mean()))}
    forms = [f for f in ("scale_factor", "sparsity_form") if f in result]
    if forms:
        result["better_fit"] = min(forms, key=lambda f: result[f]["rms_log_residual"])
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m softmax_mlir.calibrate",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--q", required=True)
    ap.add_argument("--k", required=True)
    ap.add_argument("--v", required=True)
    ap.add_argument("--tile", default="1,16", help="Qt,Kt of skip(..., tile [Qt, Kt])")
    ap.add_argument("--lengths", default=None,
                    help="prefix lengths to calibrate on (default: N/4, N/2, N)")
    ap.add_argument("--lambdas", default=",".join(map(str, DEFAULT_LAMBDAS)))
    ap.add_argument("--max-rel-err", type=float, default=1e-2)
    ap.add_argument("--no-causal", action="store_true")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    q, k, v = (np.load(p).astype(np.float32) for p in (args.q, args.k, args.v))
    if q.ndim == 2:
        q, k, v = q[None], k[None], v[None]
    tile = tuple(int(x) for x in args.tile.split(","))
    if len(tile) != 2 or min(tile) < 1:
        ap.error("--tile takes two positive integers, Qt,Kt")
    n = q.shape[1]
    lengths = ([int(x) for x in args.lengths.split(",")] if args.lengths
               else sorted({max(1, n // 4), max(1, n // 2), n}))
    if max(lengths) > n:
        ap.error(f"--lengths go up to {max(lengths)}, the sample has {n} tokens")
    lambdas = [float(x) for x in args.lambdas.split(",")]
    records = []
    for length in lengths:
        records += sweep(q[:, :length], k[:, :length], v[:, :length], lambdas, tile,
                         not args.no_causal)
    result = {"tile": list(tile), "causal": not args.no_causal, "heads": q.shape[0],
              "sweep": records, **fit(records, args.max_rel_err)}
    if "scale_factor" in result:
        result["operand"] = {"kind": "scale_factor", "value": result["scale_factor"]["a"],
                             "tile": list(tile)}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"{'L':>6} {'lambda':>8} {'sparsity':>8} {'rel_err':>9} {'kl_max':>9}")
    for r in records:
        print(f"{r['length']:6d} {r['lambda']:8.0e} {r['sparsity']:8.3f} {r['rel_err']:9.2e} "
              f"{r['row_kl_max']:9.2e}")
    if "scale_factor" in result:
        sf = result["scale_factor"]
        print(f"lambda = a / L: a = {sf['a']:.4g} (rms ln residual {sf['rms_log_residual']:.3f})")
    if "sparsity_form" in result:
        sp = result["sparsity_form"]
        print(f"lambda = a exp(b s): a = {sp['a']:.3g}, b = {sp['b']:.3g} "
              f"(rms ln residual {sp['rms_log_residual']:.3f})")
    if "better_fit" in result:
        print(f"better fit: {result['better_fit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
