#!/usr/bin/env python3
"""Execution check of the raise corpus (test/Dialect/Softmax/Raise/Corpus).

Every function of the corpus is front-end IR taken from another project;
``corpus.json`` states what it computes (softmax, log_softmax or logsumexp
over one dimension; attention with its operand layouts, scale, mask and
heads). For each function this script

1. builds a module holding the corpus file and a ``main`` that calls the
   function on fixed-seed random inputs (embedded bit-exactly as hex dense
   constants) and prints every result element's bits;
2. **raised**: lowers it with ``softmax-opt --softmax-raise --softmax-to-cpu``
   after checking that ``--softmax-raise`` turned it into ``softmax.*`` ops
   (a function that is not raised is a failure: the pipeline would run the
   front end's own loops, silently);
3. **original**: lowers the unraised file with stock upstream ``mlir-opt``
   (``linalg.softmax`` decomposed by the transform library the softmax
   harness uses, then one-shot bufferization, ``convert-linalg-to-loops`` and
   ``convert-to-llvm``: the recipe is ``UPSTREAM_PIPELINE`` below), which
   shows that the manifest's semantics are the front end's own;
4. runs both with ``mlir-runner`` and compares them with a float64
   reference computed from the manifest and the rounded inputs.

Inputs: N(0, 3) values; for the softmax family also a row of +-1e4 and a row
of large negatives (-2e4 .. -1e4) along the reduced dimension where the
tensor has at least three rows; for attention, N(0, 1) operands, additive
masks hide about a third of the keys with -1e4 (never all of a row),
padding and boolean masks leave at least one key visible, and a boolean
mask marked ``"values": "tril"`` gets the lower-triangular causal mask the
model keeps in its buffer.

A normalization over several contiguous dimensions at once lists them in
``dims`` (``dim`` is the first); it is checked as one over their product.
A function with dynamic shapes lists its declared argument and result types
in ``arg_types`` and ``result_type``; it is called on the static ``shape``
of each argument through ``tensor.cast``.

Error metric, per function (the maximum over its rows): softmax
``max |y - ref| / max |ref|`` per row; log_softmax ``max |y - ref| /
max(1, |ref|)``; logsumexp ``|y - ref| / max(1, |ref|)``; attention, per
query row, ``max |o - ref| / max |ref|``; linear cross-entropy, per loss,
``|y - ref| / max(1, |ref|)``. Bounds: f32 2e-6 (softmax family) and 1e-5
(attention and cross-entropy: the f32 contractions), f16 1e-2 and bf16 5e-2
(the front ends sum in the input type); ``bound`` in a manifest entry
overrides.

A linear cross-entropy (``"kind": "linear_cross_entropy"``) names its
arguments (``hidden``, ``classifier``, ``bias`` or null, ``targets``), its
``ignore_index`` and ``reduction``; its inputs are peaked logits (up to
about +-15) and uniform targets with token 1 ignored.

Output: one line per function,
``PASS|FAIL <file>: raised yes|no, max err raised X, original Y (bound B)``
with the reason after a failure, then ``PASS: all N functions`` or
``FAIL: K of N functions (seed S): ...``. The exit status is non-zero on
any failure.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from softmax_check import (ToolError, default_tool, parse_memrefs, quantize,  # noqa: E402
                           reference as softmax_reference, row_errors, run_cmd)

DEFAULT_SEED = 20261201
HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "Dialect" / "Softmax" / "Raise" / "Corpus"
DECOMPOSE = HERE / "decompose_linalg_softmax.mlir"

# The unraised reference lowering: upstream passes only.
UPSTREAM_PIPELINE = [
    f"--transform-preload-library=transform-library-paths={DECOMPOSE}",
    "--transform-interpreter",
    "--one-shot-bufferize=bufferize-function-boundaries",
    "--convert-linalg-to-loops", "--convert-scf-to-cf",
    "--expand-strided-metadata", "--lower-affine", "--finalize-memref-to-llvm",
    "--convert-to-llvm", "--reconcile-unrealized-casts"]

BOUNDS = {("f32", False): 2e-6, ("f32", True): 1e-5, ("f16", False): 1e-2,
          ("f16", True): 1e-2, ("bf16", False): 5e-2, ("bf16", True): 5e-2}

RAISED_RE = re.compile(
    r"\bsoftmax\.(softmax|log_softmax|logsumexp|attention|linear_cross_entropy)\b")


def ttype(shape, elt: str) -> str:
    return "tensor<" + "".join(f"{s}x" for s in shape) + elt + ">"


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def encode(x64: np.ndarray, dtype: str) -> tuple[np.ndarray, str]:
    """(values the kernel sees as float64 / int64, hex dense literal)."""
    if dtype in ("i64", "i32", "i1"):
        a = np.asarray(x64).astype(np.int64)
        if dtype == "i1":
            raw = np.packbits(a.astype(np.uint8).ravel(), bitorder="little").tobytes()
        else:
            raw = a.astype("<i8" if dtype == "i64" else "<i4").tobytes()
        return a, '"0x' + raw.hex().upper() + '"'
    vals, raw = quantize(np.asarray(x64, dtype=np.float64), dtype)
    return vals.reshape(np.shape(x64)), '"0x' + raw.hex().upper() + '"'


def merged_shape(sem, shape):
    """A normalization over several contiguous dimensions ("dims", e.g. an
    ONNX opset-1 Softmax over the flattened trailing dimensions) is one over
    a single dimension of the tensor with those dimensions merged: (merged
    shape, that dimension)."""
    dims = sem.get("dims") or [sem["dim"]]
    d0, d1 = dims[0], dims[-1]
    if list(dims) != list(range(d0, d1 + 1)):
        raise ValueError(f"dims {dims} are not contiguous")
    shape = list(shape)
    return shape[:d0] + [int(np.prod(shape[d0:d1 + 1]))] + shape[d1 + 1:], d0


def softmax_inputs(sem, rng):
    a = sem["args"][0]
    shape, dim = merged_shape(sem, a["shape"])
    x = rng.standard_normal(shape) * 3.0
    rows = np.moveaxis(x, dim, -1).reshape(-1, shape[dim])
    if rows.shape[0] >= 3:
        n = shape[dim]
        rows[0] = rng.choice([-1.0, 1.0], n) * 1.0e4 + rng.standard_normal(n)
        rows[1] = rng.uniform(-2.0e4, -1.0e4, n)
    moved = list(np.moveaxis(x, dim, -1).shape)
    x = np.moveaxis(rows.reshape(moved), -1, dim)
    return [x.reshape(a["shape"])]


def parse_layout(layout: str) -> list[list[str]]:
    """'b,q,(h,d)' -> [['b'], ['q'], ['h', 'd']]; '1' is a broadcast dim."""
    out = []
    for tok in re.findall(r"\([^)]*\)|[^,]+", layout.replace(" ", "")):
        tok = tok.strip(",")
        if not tok:
            continue
        out.append(tok.strip("()").split(",") if tok.startswith("(") else [tok])
    return out


def to_canonical(arr, layout: str, sizes: dict, order: str):
    """Bring an operand in ``layout`` to the letters of ``order`` (missing
    letters become size-1 broadcast dims)."""
    groups = parse_layout(layout)
    if len(groups) != arr.ndim:
        raise ValueError(f"layout {layout} does not match rank {arr.ndim}")
    shape, letters = [], []
    for g, n in zip(groups, arr.shape):
        if len(g) == 1:
            shape.append(n)
            letters.append(g[0] if g[0] != "1" else f"_{len(letters)}")
        else:
            inner = [sizes[c] for c in g[1:]]
            shape += [n // int(np.prod(inner))] + inner
            letters += g
    a = arr.reshape(shape)
    # drop unit broadcast dims, then add missing letters
    keep = [i for i, c in enumerate(letters) if not c.startswith("_")]
    a = a.reshape([shape[i] for i in keep])
    letters = [letters[i] for i in keep]
    for c in order:
        if c not in letters:
            a = a[..., None]
            letters.append(c)
    return np.transpose(a, [letters.index(c) for c in order])


def from_canonical(o, layout: str, shape) -> np.ndarray:
    """o is [b, h, q, e]; produce the output layout."""
    groups = parse_layout(layout)
    flat = [c for g in groups for c in g]
    order = "bhqe"
    o2 = o
    for c in order:
        if c not in flat:
            if o2.shape[order.index(c)] != 1:
                raise ValueError(f"output layout {layout} drops a non-unit dim {c}")
    letters = [c for c in order if c in flat]
    o2 = o.reshape([o.shape[order.index(c)] for c in letters])
    o2 = np.transpose(o2, [letters.index(c) for c in flat])
    return o2.reshape(shape)


def attention_inputs(sem, rng):
    args = sem["args"]
    xs = [None] * len(args)
    for role in ("q", "k", "v"):
        i = sem[role]["arg"]
        if xs[i] is None:
            xs[i] = rng.standard_normal(args[i]["shape"])
    m = sem.get("mask")
    if m is not None:
        i = m["arg"]
        shape = args[i]["shape"]
        if m["kind"] == "additive":
            x = rng.standard_normal(shape)
            hide = rng.random(shape) < 0.3
            x = np.where(hide, -1.0e4, x)
            # never hide a whole row: keep the first key of every row visible
            x[..., 0] = np.where(x[..., 0] < -1.0e3, 0.5, x[..., 0])
        elif m["kind"] == "bool_select" and m.get("values") == "tril":
            # the causal mask a model keeps as a buffer (GPT-2's "bias")
            nq, nk = shape[-2], shape[-1]
            x = np.broadcast_to(np.tril(np.ones((nq, nk), dtype=np.int64), nk - nq), shape).copy()
        elif m["kind"] == "bool_select":
            x = (rng.random(shape) < 0.7).astype(np.int64)
            x[..., 0] = 1
        else:  # padding_one_minus: i64 0/1, 1 = visible
            x = (rng.random(shape) < 0.7).astype(np.int64)
            x[..., 0] = 1
        xs[i] = x
    for i, x in enumerate(xs):
        if x is None:  # unused argument
            xs[i] = rng.standard_normal(args[i]["shape"])
    return xs


def cross_entropy_inputs(sem, rng):
    """hidden N(0, 1), classifier N(0, 1) / sqrt(D) times 4 (peaked rows:
    logits up to about +-15), bias N(0, 1); targets uniform over the
    classes, with token 1 (of two or more) at the ignored index."""
    args = sem["args"]
    n, d = args[sem["hidden"]]["shape"]
    v = args[sem["classifier"]]["shape"][0]
    xs = [None] * len(args)
    xs[sem["hidden"]] = rng.standard_normal((n, d))
    xs[sem["classifier"]] = rng.standard_normal((v, d)) * 4.0 / np.sqrt(d)
    if sem.get("bias") is not None:
        xs[sem["bias"]] = rng.standard_normal(v)
    t = rng.integers(0, v, n)
    if n >= 2:
        t[1] = sem["ignore_index"]
    xs[sem["targets"]] = t
    return xs


# ---------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------


def cross_entropy_ref(sem, vals):
    h = vals[sem["hidden"]].astype(np.float64)
    w = vals[sem["classifier"]].astype(np.float64)
    z = h @ w.T
    if sem.get("bias") is not None:
        z = z + vals[sem["bias"]].astype(np.float64)
    t = vals[sem["targets"]].astype(np.int64)
    keep = t != sem["ignore_index"]
    mx = z.max(axis=1)
    lse = mx + np.log(np.exp(z - mx[:, None]).sum(axis=1))
    picked = z[np.arange(len(t)), np.where(keep, t, 0)]
    loss = np.where(keep, lse - picked, 0.0)
    red = sem["reduction"]
    if red == "none":
        return loss
    if red == "sum":
        return np.array(loss.sum())
    return np.array(loss.sum() / keep.sum())


def softmax_ref(sem, vals):
    shape, dim = merged_shape(sem, vals[0].shape)
    x = vals[0].reshape(shape)
    moved = np.moveaxis(x, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    y = softmax_reference(sem["kind"], rows, "nan")
    if sem["kind"] == "logsumexp":
        return y.reshape(moved.shape[:-1])
    return np.moveaxis(y.reshape(moved.shape), -1, dim).reshape(vals[0].shape)


def attention_ref(sem, vals):
    h, hkv, d = sem["heads"], sem["kv_heads"], sem["head_dim"]
    sizes = {"h": h, "d": d, "e": d}
    qa, ka, va = (vals[sem[r]["arg"]].astype(np.float64) for r in ("q", "k", "v"))
    q = to_canonical(qa, sem["q"]["layout"], sizes, "bhqd")
    sizes_kv = {"h": hkv, "d": d, "e": d}
    k = to_canonical(ka, sem["k"]["layout"].replace("k", "q"), sizes_kv, "bhqd")
    v = to_canonical(va, sem["v"]["layout"].replace("k", "q").replace("e", "d"), sizes_kv, "bhqd")
    group = h // hkv
    k = np.repeat(k, group, axis=1)
    v = np.repeat(v, group, axis=1)
    s = np.einsum("bhid,bhjd->bhij", q, k) * sem["scale"]
    m = sem.get("mask")
    if m is not None:
        mv = vals[m["arg"]]
        lay = m["layout"]
        if m["kind"] == "bool_select":
            keep = to_canonical(mv.astype(bool), lay.replace("k", "K"), {}, "bhqK")
            s = np.where(keep, s, m["fill"])
        else:
            if m["kind"] == "padding_one_minus":
                add = (1.0 - mv.astype(np.float64)) * m["value"]
            else:
                add = mv.astype(np.float64)
            s = s + to_canonical(add, lay.replace("k", "K"), {}, "bhqK")
    if sem.get("causal"):
        nq, nk = s.shape[-2:]
        i = np.arange(nq)[:, None] + (nk - nq)
        j = np.arange(nk)[None, :]
        s = np.where(j <= i, s, -np.inf)
    mx = s.max(axis=-1, keepdims=True)
    p = np.exp(s - mx)
    o = np.einsum("bhij,bhjd->bhid", p, v) / p.sum(axis=-1)[..., None]
    return from_canonical(o, sem["out"]["layout"], sem["out"]["shape"])


def attention_err(y, ref):
    yr = y.reshape(-1, y.shape[-1])
    rr = ref.reshape(-1, ref.shape[-1])
    if not np.all(np.isfinite(yr)):
        return float("inf")
    scale = np.max(np.abs(rr), axis=-1)
    return float(np.max(np.max(np.abs(yr - rr), axis=-1) / np.where(scale > 0, scale, 1.0)))


# ---------------------------------------------------------------------------
# Module
# ---------------------------------------------------------------------------


def print_result(val: str, shape, elt: str, tag: str) -> str:
    """Print a float tensor's bits: f32 bitcast, f16/bf16 extf to f32 first,
    f64 bitcast to i64."""
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    amap = f"affine_map<({dims}) -> ({dims})>"
    its = ", ".join(['"parallel"'] * rank)
    ib = "i64" if elt == "f64" else "i32"
    it = ttype(shape, ib)
    mt = it.replace("tensor", "memref")
    ext = f"%w = arith.extf %a : {elt} to f32\n    " if elt in ("f16", "bf16") else ""
    src = "%w" if ext else "%a"
    fsrc = "f64" if elt == "f64" else "f32"
    pr = "printMemrefI64" if elt == "f64" else "printMemrefI32"
    return (f"  %e_{tag} = tensor.empty() : {it}\n"
            f"  %b_{tag} = linalg.generic {{indexing_maps = [{amap}, {amap}], iterator_types = [{its}]}}"
            f" ins({val} : {ttype(shape, elt)}) outs(%e_{tag} : {it}) {{\n"
            f"  ^bb0(%a: {elt}, %o: {ib}):\n    {ext}%c = arith.bitcast {src} : {fsrc} to {ib}\n"
            f"    linalg.yield %c : {ib}\n  }} -> {it}\n"
            f"  %m_{tag} = bufferization.to_buffer %b_{tag} : {it} to {mt}\n"
            f"  %u_{tag} = memref.cast %m_{tag} : {mt} to memref<*x{ib}>\n"
            f"  call @{pr}(%u_{tag}) : (memref<*x{ib}>) -> ()\n")


def build_module(text: str, entry, hexes) -> str:
    sem = entry
    args = sem["args"]
    res = sem["result"] if sem["kind"] != "attention" else sem["out"]
    lines = [text, "", "func.func @main() {"]
    names = []
    # A function with dynamic shapes declares its signature in the manifest
    # ("arg_types", "result_type"); the static inputs are tensor.cast to it
    # and the result cast back to the static "shape" of the manifest.
    decl = sem.get("arg_types") or [None] * len(args)
    for i, (a, hx) in enumerate(zip(args, hexes)):
        st = ttype(a["shape"], a["dtype"])
        lines.append(f"  %in{i} = arith.constant dense<{hx}> : {st}")
        if decl[i] and decl[i] != st:
            lines.append(f"  %dyn{i} = tensor.cast %in{i} : {st} to {decl[i]}")
            names.append(f"%dyn{i}")
        else:
            names.append(f"%in{i}")
    ins = ", ".join(d or ttype(a["shape"], a["dtype"]) for a, d in zip(args, decl))
    rt = ttype(res["shape"], res["dtype"])
    rdecl = sem.get("result_type") or rt
    if rdecl != rt:
        lines.append(f"  %rd = call @{entry['func']}({', '.join(names)}) : ({ins}) -> {rdecl}")
        lines.append(f"  %r = tensor.cast %rd : {rdecl} to {rt}")
    else:
        lines.append(f"  %r = call @{entry['func']}({', '.join(names)}) : ({ins}) -> {rt}")
    lines.append(print_result("%r", res["shape"], res["dtype"], "r"))
    lines.append("  return\n}")
    lines.append("func.func private @printMemrefI32(memref<*xi32>)")
    lines.append("func.func private @printMemrefI64(memref<*xi64>)")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--softmax-opt", default=default_tool(
        "SOFTMAX_OPT", str(HERE.parents[2] / "build" / "bin" / "softmax-opt")))
    ap.add_argument("--mlir-opt", default=default_tool("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt"))
    ap.add_argument("--mlir-runner", default=default_tool("MLIR_RUNNER", "/usr/lib/llvm-22/bin/mlir-runner"))
    ap.add_argument("--runner-libs", default="/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,"
                    "/usr/lib/llvm-22/lib/libmlir_runner_utils.so")
    ap.add_argument("--corpus", default=str(CORPUS))
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--only", default=None, help="substring of the file names to run")
    ap.add_argument("--keep", default=None, help="directory to keep the modules in")
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args(argv)

    libs = args.runner_libs
    for prefix in ("--shared-libs=", "-shared-libs="):
        if libs.startswith(prefix):
            libs = libs[len(prefix):]
    runner = [args.mlir_runner, "-e", "main", "-entry-point-result=void", f"-shared-libs={libs}"]

    corpus = Path(args.corpus)
    manifest = json.loads((corpus / "corpus.json").read_text())["functions"]
    entries = [e for e in manifest if not args.only or args.only in e["file"]]
    print(f"corpus_check: {len(entries)} functions from {corpus.name}/corpus.json, seed {args.seed}")
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="corpus_check."))
    tmp.mkdir(parents=True, exist_ok=True)

    failures, not_raised = [], []
    for idx, e in enumerate(entries):
        name = e["file"]
        # One generator per function, from the seed and the file name: the
        # inputs of a function do not depend on which others run.
        rng = np.random.default_rng([args.seed, sum(name.encode()) * 1000 + len(name)])
        is_att = e["kind"] == "attention"
        is_ce = e["kind"] == "linear_cross_entropy"
        try:
            raw = (attention_inputs(e, rng) if is_att else
                   cross_entropy_inputs(e, rng) if is_ce else softmax_inputs(e, rng))
            vals, hexes = [], []
            for a, x in zip(e["args"], raw):
                v, hx = encode(x, a["dtype"])
                vals.append(v)
                hexes.append(hx)
            ref = (attention_ref(e, vals) if is_att else
                   cross_entropy_ref(e, vals) if is_ce else softmax_ref(e, vals))
        except (KeyError, ValueError, IndexError, TypeError) as ex:
            print(f"FAIL {name}: corpus.json entry unusable: {type(ex).__name__}: {ex}")
            failures.append(name)
            continue
        rdt = (e["out"] if is_att else e["result"])["dtype"]
        bound = e.get("bound", BOUNDS[(rdt, is_att or is_ce)])
        text = (corpus / name).read_text()
        mod = tmp / name.replace(".mlir", ".run.mlir")
        mod.write_text(build_module(text, e, hexes))

        results, reasons = {}, []
        raised = False
        try:
            r = run_cmd([args.softmax_opt, str(corpus / name), "--softmax-raise"], None,
                        "softmax-opt --softmax-raise", args.timeout).decode()
            want = f"softmax.{e['kind']}"
            raised = re.search(re.escape(want) + r"\b", r) is not None and "math.exp" not in r
            if not raised:
                found = sorted(set(m.group(0) for m in RAISED_RE.finditer(r)))
                reasons.append(f"not raised: no {want} after --softmax-raise"
                               + (f" (only {', '.join(found)}" if found else " (no softmax.* op")
                               + (", math.exp left)" if "math.exp" in r else ")"))
        except ToolError as ex:
            reasons.append(f"softmax-raise failed: {str(ex).splitlines()[0]}")
        pipelines = {
            "raised": [args.softmax_opt, str(mod), "--softmax-raise", "--softmax-to-cpu"],
            "original": [args.mlir_opt, str(mod), *UPSTREAM_PIPELINE],
        }
        for what, cmd in pipelines.items():
            try:
                llvm = run_cmd(cmd, None, f"{what} lowering", args.timeout)
                out = run_cmd(runner, llvm, f"mlir-runner ({what})", args.timeout).decode()
                bits = 64 if rdt == "f64" else 32
                got = parse_memrefs(out, bits)[0].reshape(ref.shape)
                if is_att:
                    err = attention_err(got, ref)
                    bad = not np.isfinite(err)
                elif is_ce:
                    # Per loss: |y - ref| / max(1, |ref|).
                    with np.errstate(all="ignore"):
                        rel = np.abs(got - ref) / np.maximum(1.0, np.abs(ref))
                    err = float(np.max(rel)) if np.all(np.isfinite(got)) else float("inf")
                    bad = not np.isfinite(err)
                else:
                    op = e["kind"]
                    if op != "logsumexp":
                        mshape, mdim = merged_shape(e, ref.shape)
                        moved = np.moveaxis(got.reshape(mshape), mdim, -1)
                        rmoved = np.moveaxis(ref.reshape(mshape), mdim, -1)
                    else:
                        moved, rmoved = got, ref
                    if op == "logsumexp":
                        errs, mism = row_errors(op, moved.reshape(-1), rmoved.reshape(-1))
                    else:
                        errs, mism = row_errors(op, moved.reshape(-1, moved.shape[-1]),
                                                rmoved.reshape(-1, rmoved.shape[-1]))
                    err = float(np.max(errs))
                    bad = bool(np.any(mism))
                results[what] = err
                if bad or err > bound:
                    reasons.append(f"{what}: error {err:.3e} over the bound {bound:.0e}"
                                   + (" (non-finite values)" if bad else ""))
            except (ToolError, RuntimeError, ValueError) as ex:
                results[what] = None
                msg = str(ex).strip().splitlines()
                reasons.append(f"{what}: {msg[0] if msg else ex}"
                               + (f" | {msg[-1]}" if len(msg) > 1 else ""))

        def fmt(v):
            return "n/a" if v is None else f"{v:.3e}"
        status = "PASS" if not reasons else "FAIL"
        print(f"{status} {name}: raised {'yes' if raised else 'no'}, max err raised "
              f"{fmt(results.get('raised'))}, original {fmt(results.get('original'))} "
              f"(bound {bound:.0e})")
        for rs in reasons:
            print(f"  {name}: {rs}")
        if reasons:
            failures.append(name)
            if not raised:
                not_raised.append(name)
        sys.stdout.flush()

    if failures:
        other = [f for f in failures if f not in not_raised]
        print(f"FAIL: {len(failures)} of {len(entries)} functions (seed {args.seed}; reproduce: "
              f"corpus_check.py --seed {args.seed}): not raised: {len(not_raised)}"
              + (f" ({', '.join(not_raised)})" if not_raised else "")
              + f"; other failures: {len(other)}" + (f" ({', '.join(other)})" if other else ""))
        return 1
    print(f"PASS: all {len(entries)} functions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
