#!/usr/bin/env python3
"""The skip threshold on the GPU, one process: softmax.attention with
``skip(lambda ..., tile [32, 64])`` (bench/gpu/build_attention.py --skip)
against our dense kernel, with SDPA's flash and cuDNN backends for context;
bf16, d 128, B 1.

Two parts:

* ``--check``: small shapes (odd lengths, GQA, causal and not, per-request
  lambda with one entry that turns skipping off) on structured inputs
  (python/softmax_mlir/structured.py). Per call: the counts against the
  op's rule emulated in float64 (``rule``, below) at the kernel's tile
  [32, 64], the output against the float64 emulation of the same skips
  (rel err <= 1e-2, the bf16 bound) and against dense float64 within the
  rule's bound; lambda 0 must skip nothing and match dense. Fails when a
  check fails or when no call skipped anything.
* timing (default): N in --lens, causal and not, on structured inputs
  (--peaks) and, with --captures, on a trained model's Q/K/V
  (bench/blasst/train_capture.py; its 4 layers x 4 heads as 16 heads).
  Per case: dense ours, skip ours at every --lambdas (tile sparsity from
  the kernel's counts, rel err against float64 dense on --check-heads
  heads' last 512 rows, speedup over dense), the skip kernel at lambda
  1e-30 (nothing skipped: the machinery's cost), SDPA flash and cuDNN.
  Median times from triton.testing.do_bench.

Usage (on the GPU machine):
    python3 bench/blasst/bench_skip_gpu.py --lib-dir build-gpu/attention --check
    python3 bench/blasst/bench_skip_gpu.py --lib-dir build-gpu/attention \\
        [--captures DIR] --json F --md F
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "gpu"))
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_attention import Ours, memref, sdpa  # noqa: E402
from softmax_mlir.structured import structured_qkv  # noqa: E402
from skip_rule import emulate  # noqa: E402

QT, KT = 32, 64
# --tma: the skip kernels with two buffers and K/V tiles by TMA
# (build_attention.py's attention_skip_*_tma), and the dense kernel of the
# same schedule timed besides ours.
SKIP_SUFFIX = ""
# The dense kernel of the skip kernels' schedule, timed besides ours
# (prefix; empty: none).
DENSE_ALSO = ""
# The skip kernels timed, (suffix, query tile rows): the warp tiles'
# (SKIP_SUFFIX, QT) and with --block the block tiles' after them.
VARIANTS: list = []


def skip_call(ours: Ours, q, k, v, lam, o, counts, causal, splits: int = 1,
              suffix: str | None = None):
    name = (f"attention_skip_d{q.shape[3]}"
            + (f"_s{splits}" if splits > 1 else "") + ("_causal" if causal else "")
            + (SKIP_SUFFIX if suffix is None else suffix))
    return ours.call(name, q, k, v, lam, o, counts)


def rule(q, k, v, causal: bool, lam: float, start: int, splits: int = 1):
    """emulate() at the kernel's tile, with the rule's bound on the skipped
    mass of a row: the most tiles skipped times KT lambda."""
    dense, out, live, skipped, most = emulate(q, k, v, causal, lam, QT, KT, start, splits)
    return dense, out, live, skipped, most * KT * (lam if 0 < lam < 1 else 0.0)


def rel(a, b):
    return float((a.double() - b).abs().max() / b.abs().max().clamp_min(1e-30))


def structured(b, h, hkv, n, d, peak, seed, topics=32, nq=None):
    """Structured inputs on the GPU in bf16 (nq query rows, default n);
    heads beyond 4 KV heads repeat the first 4 (generating 32 heads of 64k
    rows in numpy takes minutes)."""
    g = min(hkv, 4)
    q, k, v = structured_qkv(np.random.default_rng(seed), b, g * (h // hkv), g, nq or n,
                             n, d, d, peak=peak, topics=topics)
    t = lambda x, reps: torch.from_numpy(x).cuda().to(torch.bfloat16).repeat(1, reps, 1, 1)
    return (t(q, hkv // g).contiguous(), t(k, hkv // g).contiguous(),
            t(v, hkv // g).contiguous())


def check(ours, args) -> int:
    cases = [  # (B, H, Hkv, N, causal, peak, lambdas per batch entry)
        (1, 2, 2, 300, True, 16.0, [1e-3]),
        (1, 2, 2, 300, False, 12.0, [1e-2]),
        (2, 4, 2, 257, True, 16.0, [1e-2, 0.0]),
        (1, 4, 1, 1031, True, 24.0, [1e-3]),
        (1, 2, 2, 2048, False, 16.0, [1e-3]),
        (1, 2, 2, 4096, True, 16.0, [1e-2]),
        (1, 2, 2, 2000, True, 4.0, [1e-3]),
        (1, 2, 2, 129, True, 16.0, [1.0]),
        (1, 2, 2, 640, True, 16.0, [0.0]),
        # Split-KV decode (Nq query rows, S splits): each split's tiles from
        # its own first key, its first tile never skipped.
        (1, 4, 4, 16384, True, 16.0, [1e-2], 1, 4),
        (2, 2, 1, 3001, False, 12.0, [1e-3, 3e-2], 1, 16),
        (1, 2, 2, 5000, True, 16.0, [1e-2], 3, 4),
        (1, 2, 2, 1000, True, 16.0, [1e-2], 5, 16),
        # Three query rows, no split: one block whose other rows are past
        # Nq and let every tile go (the kernels' shapes are dynamic).
        (1, 4, 4, 3001, True, 16.0, [1e-2], 3, 1),
    ]
    failed = total_skipped = 0
    rows = []
    for ci, case in enumerate(cases):
        b, h, hkv, n, causal, peak, lams = case[:7]
        nq, splits = case[7:] if len(case) > 7 else (n, 1)
        if splits > 1 and SKIP_SUFFIX not in ("", "_tma"):
            continue  # split-KV decode builds: the [32, 64] tile's only
        q, k, v = structured(b, h, hkv, n, 128, peak, 1000 + ci, topics=32, nq=nq)
        lam = torch.tensor(lams, device="cuda", dtype=torch.float32)
        o = torch.full_like(q, float("nan"))
        counts = torch.full((2,), -7, device="cuda", dtype=torch.int64)
        call, _ = skip_call(ours, q, k, v, lam, o, counts, causal, splits)
        call()
        torch.cuda.synchronize()
        ours.check_error()
        live = skipped = 0
        worst_skip = worst_dense = 0.0
        ok = not torch.isnan(o).any().item()
        for bi in range(b):
            for hi in range(h):
                kh = hi // (h // hkv)
                dense, ref, lv, sk, bound = rule(q[bi, hi], k[bi, kh], v[bi, kh], causal,
                                                 lams[bi], 0, splits)
                live, skipped = live + lv, skipped + sk
                e_skip, e_dense = rel(o[bi, hi], ref), rel(o[bi, hi], dense)
                worst_skip, worst_dense = max(worst_skip, e_skip), max(worst_dense, e_dense)
                # bf16 output rounding (2^-8 relative) plus the skipped mass.
                vrange = float(v[bi, kh].double().max() - v[bi, kh].double().min())
                dense_bound = 1e-2 + bound * vrange / float(dense.abs().max())
                ok &= e_skip <= 1e-2 and e_dense <= dense_bound
        got = counts.tolist()
        # Near the boundary the kernel's log2-unit test may decide a tile
        # the other way from float64: allow 1% of the live pairs.
        ok &= got[0] == live and abs(got[1] - skipped) <= max(1, live // 100)
        if all(not (0 < x < 1) for x in lams):
            ok &= got[1] == 0
        total_skipped += got[1]
        failed += not ok
        rows.append({"B": b, "H": h, "Hkv": hkv, "Nq": nq, "N": n, "splits": splits,
                     "causal": causal, "peak": peak,
                     "lambda": lams, "counts": got, "rule_counts": [live, skipped],
                     "rel_err_vs_rule": worst_skip, "rel_err_vs_dense": worst_dense,
                     "ok": bool(ok)})
        print(json.dumps(rows[-1]), flush=True)
    if total_skipped == 0:
        print("FAIL: no call skipped a tile")
        failed += 1
    print(f"check: {len(cases) - failed} of {len(cases)} cases ok")
    if args.json:
        Path(args.json).write_text(json.dumps({"check": rows}, indent=1))
    return 1 if failed else 0


def decode(ours, args) -> int:
    """Split-KV decode with the threshold: one query row, structured keys,
    the 16- and 64-split kernels (128 and 512 blocks for 8 heads) at each
    lambda against themselves at lambda 0 (nothing skipped), with the
    kernel's counts and the error against float64."""
    rows, failed = [], 0
    for n in (32768, 65536):
        for peak in (12.0, 16.0):
            b, h = 1, 8
            q, k, v = structured(b, h, h, n, 128, peak, 7 + n, topics=32, nq=1)
            ref = [rule(q[0, i], k[0, i], v[0, i], True, 0.0, 0)[0] for i in range(2)]
            for splits in (16, 64):
                base = None
                for lam in (0.0, 1e-3, 1e-2, 3e-2):
                    lt = torch.tensor([lam], device="cuda", dtype=torch.float32)
                    o = torch.full_like(q, float("nan"))
                    counts = torch.zeros(2, device="cuda", dtype=torch.int64)
                    call, _ = skip_call(ours, q, k, v, lt, o, counts, True, splits)
                    call()
                    torch.cuda.synchronize()
                    ours.check_error()
                    got = counts.tolist()
                    err = max(rel(o[0, i], ref[i]) for i in range(2))
                    counts.zero_()
                    ms = median_ms(call, args.reps)
                    base = base or ms
                    kv = b * h * n * 2 * 128 * 2
                    r = {"N": n, "peak": peak, "splits": splits, "lambda": lam, "ms": ms,
                         "speedup": base / ms,
                         "gbs": kv / (ms * 1e-3) / 1e9, "live": got[0], "skipped": got[1],
                         "sparsity": got[1] / max(got[0], 1), "rel_err": err}
                    # The error is reported, not bounded here: --check holds the
                    # kernel to the rule.
                    failed += bool(torch.isnan(o).any().item())
                    rows.append(r)
                    print(json.dumps(r), flush=True)
    if not any(r["skipped"] for r in rows):
        print("FAIL: nothing was skipped")
        failed += 1
    lines = ["| N | peak | splits | lambda | sparsity | ms | speedup vs lambda 0 | KV GB/s "
             "| rel err |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['N']} | {r['peak']:g} | {r['splits']} | {r['lambda']:g} | "
              f"{r['sparsity']:.3f} | "
              f"{r['ms']:.4f} | {r['speedup']:.2f}x | {r['gbs']:.0f} | {r['rel_err']:.1e} |"
              for r in rows]
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps({"decode": rows}, indent=1))
    if args.md:
        Path(args.md).write_text("\n".join(lines) + "\n")
    return 1 if failed else 0


def median_ms(fn, reps):
    import triton.testing
    return triton.testing.do_bench(fn, warmup=reps, rep=reps * 50, return_mode="median")


def model_inputs(captures: Path, n: int):
    z = np.load(captures / f"capture_L{n}.npz")
    layers = sorted(key for key in z.files if key.startswith("q"))
    qs = [z[name] for name in layers]
    ks = [z["k" + name[1:]] for name in layers]
    vs = [z["v" + name[1:]] for name in layers]
    t = lambda xs: torch.from_numpy(np.concatenate(xs, 0)[None]).cuda().to(torch.bfloat16) \
        .contiguous()
    return t(qs), t(ks), t(vs)


def bench(ours, args) -> int:
    flash = sdpa(torch.nn.attention.SDPBackend.FLASH_ATTENTION)
    cudnn = sdpa(torch.nn.attention.SDPBackend.CUDNN_ATTENTION)
    lambdas = [float(x) for x in args.lambdas.split(",")]
    results = []
    inputs = [("structured", float(p)) for p in args.peaks.split(",") if p]
    if args.captures:
        inputs.append(("model", None))
    for n in (int(x) for x in args.lens.split(",")):
        for kind, peak in inputs:
            if kind == "model":
                path = Path(args.captures) / f"capture_L{n}.npz"
                if not path.exists():
                    print(f"no capture {path}")
                    continue
                q, k, v = model_inputs(Path(args.captures), n)
            else:
                q, k, v = structured(1, args.heads, args.heads, n, 128, peak, 7 + n)
            h = q.shape[1]
            for causal in (True, False):
                case = {"input": kind, "peak": peak, "N": n, "H": h, "causal": causal}
                flops = 4 * h * n * n * 128 / (2 if causal else 1)
                o = torch.empty_like(q)
                dense_call, _ = ours.fn(q, k, v, o, causal)
                t_dense = median_ms(dense_call, args.reps)
                ours.check_error()
                case["dense_ms"] = t_dense
                case["dense_tflops"] = flops / t_dense / 1e9
                dense_out = o.clone()
                heads = list(range(0, h, max(1, h // args.check_heads)))[:args.check_heads]
                start = max(0, (n - 512) // QT * QT)
                refs = {hh: rule(q[0, hh], k[0, hh], v[0, hh], causal, 0.0, start)[0]
                        for hh in heads}
                case["dense_rel_err"] = max(rel(dense_out[0, hh, start:], refs[hh])
                                            for hh in heads)
                if DENSE_ALSO:
                    also_call, _ = ours.fn(q, k, v, o, causal, prefix=DENSE_ALSO)
                    # dense_tma_ms, dense_wg_ms: named after the dense
                    # kernel, whatever variants --block adds.
                    case[f"dense_{DENSE_ALSO.removeprefix('attention_')}_ms"] = \
                        median_ms(also_call, args.reps)
                    ours.check_error()
                case["skip"] = []
                for (suffix, qt), lam in ((var, lam) for var in VARIANTS
                                          for lam in [1e-30] + lambdas):
                    lt = torch.tensor([lam], device="cuda", dtype=torch.float32)
                    counts = torch.zeros(2, device="cuda", dtype=torch.int64)
                    o.fill_(float("nan"))
                    call, _ = skip_call(ours, q, k, v, lt, o, counts, causal, suffix=suffix)
                    call()
                    torch.cuda.synchronize()
                    ours.check_error()
                    live, skipped = counts.tolist()
                    err = max(rel(o[0, hh, start:], refs[hh]) for hh in heads)
                    t = median_ms(call, args.reps)
                    row = {"kernel": suffix, "tile": [qt, KT], "lambda": lam, "ms": t,
                           "speedup": t_dense / t,
                           "live": live, "skipped": skipped,
                           "sparsity": skipped / live if live else 0.0,
                           "rel_err": err, "nan": bool(torch.isnan(o).any())}
                    if args.overhead_nc and lam == 1e-30 and q.shape[3] == 128:
                        # The same kernel without the counts operand.
                        nc, _ = ours.call(f"attention_skip_d128{'_causal' if causal else ''}"
                                          f"{suffix}_nc", q, k, v, lt, o)
                        row["nc_ms"] = median_ms(nc, args.reps)
                        row["nc_speedup"] = t_dense / row["nc_ms"]
                        ours.check_error()
                    case["skip"].append(row)
                    print(json.dumps({**{k_: case[k_] for k_ in ("input", "peak", "N",
                                                                   "causal")}, **row}),
                          flush=True)
                for name, fn in (("flash", flash), ("cudnn", cudnn)):
                    try:
                        case[f"{name}_ms"] = median_ms(lambda: fn(q, k, v, causal), args.reps)
                    except Exception as e:  # a backend that refuses the shape
                        case[f"{name}_ms"] = None
                        case[f"{name}_error"] = str(e)[:200]
                results.append(case)
                if args.json:
                    Path(args.json).write_text(json.dumps({"cases": results,
                                                           "complete": False}, indent=1))
            del q, k, v
            torch.cuda.empty_cache()
    out = {"cases": results, "complete": True, "device": torch.cuda.get_device_name(),
           "torch": torch.__version__, "command": " ".join(sys.argv),
           "date": time.strftime("%Y-%m-%d")}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    lines = ["| input | N | causal | dense ms | kernel | tile | lambda | skip ms | speedup | "
             "no counts | sparsity | rel err | flash ms | cudnn ms |", "|" + "---|" * 14]
    for c in results:
        name = c["input"] + (f" peak {c['peak']:g}" if c["peak"] is not None else "")
        for r in c["skip"]:
            fl = f"{c['flash_ms']:.2f}" if c.get("flash_ms") else "-"
            cu = f"{c['cudnn_ms']:.2f}" if c.get("cudnn_ms") else "-"
            lines.append(f"| {name} | {c['N']} | {c['causal']} | {c['dense_ms']:.2f} | "
                         f"{r['kernel'] or '-'} | [{r['tile'][0]}, {r['tile'][1]}] | {r['lambda']:g} | {r['ms']:.2f} | "
                         f"{r['speedup']:.3f} | "
                         + (f"{r['nc_speedup']:.3f}" if "nc_speedup" in r else "-")
                         + f" | {r['sparsity']:.3f} | {r['rel_err']:.1e} | {fl} | {cu} |")
    table = "\n".join(lines)
    print(table)
    if args.md:
        Path(args.md).write_text(table + "\n")
    real = [r for c in results for r in c["skip"] if r["lambda"] > 1e-20]
    if real and all(r["skipped"] == 0 for r in real):
        print("FAIL: nothing was skipped")
        return 1
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib-dir", default="build-gpu/attention")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--decode", action="store_true",
                    help="split-KV decode (one query row, 16 splits) at several lambdas")
    ap.add_argument("--lens", default="16384,32768,65536")
    ap.add_argument("--peaks", default="16")
    ap.add_argument("--lambdas", default="1e-3,1e-2")
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--check-heads", type=int, default=2)
    ap.add_argument("--captures", default=None)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", default=None)
    ap.add_argument("--md", default=None)
    ap.add_argument("--tma", action="store_true",
                    help="the skip kernels with two buffers and TMA tiles")
    ap.add_argument("--wgmma", action="store_true",
                    help="the sm_90a skip kernels (tile [16, 64], scores on wgmma), "
                         "and the dense wgmma kernel timed besides ours")
    ap.add_argument("--block", type=int, default=0, choices=(0, 64, 128),
                    help="the block tiles' kernels: with --tma 128 ([128, 64], "
                         "4 warps of 32 rows), with --wgmma 64 or 128 ([64, 64] "
                         "one warpgroup, [128, 64] two). --check checks them; "
                         "timing times them after the warp tiles' kernels of the "
                         "same schedule, on the same inputs")
    ap.add_argument("--overhead-nc", action="store_true",
                    help="with nothing skipped, also time each kernel built without "
                         "the counts operand (build_attention.py's *_nc, d 128: "
                         "--tma or --wgmma, with --block only 128 and 64)")
    ap.add_argument("--with-keys", action="store_true",
                    help="also the same kernels built with skip_values = with_keys "
                         "(build_attention.py's *_wk; --wgmma), timed after the others "
                         "on the same inputs; --check checks the last of them")
    args = ap.parse_args()
    global SKIP_SUFFIX, DENSE_ALSO, QT, VARIANTS
    if args.tma:
        SKIP_SUFFIX, DENSE_ALSO = "_tma", "attention_tma"
    if args.wgmma:
        SKIP_SUFFIX, DENSE_ALSO, QT = "_wg", "attention_wg", 16
    VARIANTS.append((SKIP_SUFFIX, QT))
    if args.block:
        if not (args.wgmma or (args.tma and args.block == 128)):
            ap.error("--block takes --wgmma, or --tma with 128")
        VARIANTS.append((SKIP_SUFFIX + (f"_b{args.block}" if args.tma
                                        else str(args.block)), args.block))
        SKIP_SUFFIX, QT = VARIANTS[-1]
    if args.with_keys:
        if not args.wgmma:
            ap.error("--with-keys takes --wgmma")
        VARIANTS += [(suffix + "_wk", qt) for suffix, qt in VARIANTS]
        SKIP_SUFFIX, QT = VARIANTS[-1]
    if args.check:
        VARIANTS = VARIANTS[-1:]
    ours = Ours(Path(args.lib_dir))
    if args.decode:
        return decode(ours, args)
    return check(ours, args) if args.check else bench(ours, args)


if __name__ == "__main__":
    sys.exit(main())
