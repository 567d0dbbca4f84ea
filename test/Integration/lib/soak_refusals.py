"""Programs the CPU pipeline must refuse, for the differential soak
(diff_soak.py): element types the ops do not take, an accumulation type
narrower than the input, per-op strategy requests out of range or at odds
with the op. Each is one split of a ``--split-input-file
--verify-diagnostics`` run of ``softmax-opt --softmax-to-cpu`` with the
module's options, so each must give exactly its diagnostic (and no crash,
no other error, no silence)."""

from __future__ import annotations

import numpy as np

from soak_mlir import ttype

ROW_REFUSED = ("i32", "i8", "f8E4M3FN", "f8E5M2", "f128", "f80", "tf32", "complex<f32>")
ATTENTION_REFUSED = ("f64", "i8", "f8E4M3FN", "i32")
ROW_TYPES = ("ranked tensor or memref of 16-bit float or bfloat16 type or 32-bit float or "
             "64-bit float values")
ATTENTION_TYPES = "ranked tensor or memref of 16-bit float or bfloat16 type or 32-bit float values"

#: Refusals the pipeline is known not to give, with the reason; drawn only
#: with --include-known (see bench/results/diff_soak.md).
KNOWN = {
    "request-ignored": "a cpu_strategy request whose algorithm contradicts the op's is "
                       "refused on the vector path but silently ignored where the op goes "
                       "through softmax-decompose (f64 data, acc_type = f64, vector-width=0)",
}


def _row_op(op: str, elem: str, shape: tuple[int, ...], dim: int, extra: str) -> str:
    ity = ttype(shape, elem)
    osh = tuple(d for i, d in enumerate(shape) if i != dim) if op == "logsumexp" else shape
    oty = ttype(osh, elem)
    return (f"func.func @f(%x: {ity}) -> {oty} {{\n"
            f"  %e = tensor.empty() : {oty}\n"
            "  // expected-error @+1 {{MSG}}\n"
            f"  %y = softmax.{op} ins(%x : {ity}) outs(%e : {oty}) dimension({dim}) "
            f"masked(zero){extra}\n"
            f"  return %y : {oty}\n}}")


def draw(rng: np.random.Generator, vector_path: bool, include_known: bool
         ) -> tuple[str, str] | None:
    """One refused program: (its name, its split), or None when the kind
    drawn does not apply to these options. ``vector_path``: the module's
    f32 row ops reach softmax-map-to-cpu (vector-width is not 0)."""
    op = str(rng.choice(["softmax", "log_softmax", "logsumexp"]))
    shape = (int(rng.choice([1, 3, 4])), int(rng.choice([1, 7, 64])))
    dim = 1
    kind = str(rng.choice(["row-type", "attention-type", "narrow-acc", "request-range",
                           "request-algorithm", "request-variant", "request-ignored"]))
    if kind == "row-type":
        elem = str(rng.choice(ROW_REFUSED))
        text = _row_op(op, elem, shape, dim, "")
        msg = f"'softmax.{op}' op operand #0 must be {ROW_TYPES}, but got '{ttype(shape, elem)}'"
    elif kind == "attention-type":
        elem = str(rng.choice(ATTENTION_REFUSED))
        qt, kt = ttype((1, 2, 3, 8), elem), ttype((1, 2, 5, 8), elem)
        text = (f"func.func @f(%q: {qt}, %k: {kt}, %v: {kt}) -> {qt} {{\n"
                f"  %e = tensor.empty() : {qt}\n"
                "  // expected-error @+1 {{MSG}}\n"
                f"  %y = softmax.attention ins(%q, %k, %v : {qt}, {kt}, {kt}) outs(%e : {qt}) "
                f"masked(zero)\n  return %y : {qt}\n}}")
        msg = f"'softmax.attention' op operand #0 must be {ATTENTION_TYPES}, but got '{qt}'"
    elif kind == "narrow-acc":
        text = _row_op(op, "f64", shape, dim, " {acc_type = f32}")
        msg = (f"'softmax.{op}' op accumulation type 'f32' is narrower than the input "
               "element type 'f64'")
    elif kind == "request-range":
        field, val, msg = [
            ("vector_width", int(rng.choice([3, 6, 128, 0])),
             "vector_width must be a power of two in [1, 64], got {}"),
            ("unroll", int(rng.choice([0, 17, 100])), "unroll must be in [1, 16], got {}"),
            ("block", 0, "block must be at least 1, got {}"),
        ][int(rng.integers(3))]
        msg = msg.format(val)
        text = _row_op(op, "f32", shape, dim,
                       f" algorithm(online) {{softmax.strategy = "
                       f"#softmax.cpu_strategy<{field} = {val}>}}")
    elif kind in ("request-algorithm", "request-ignored"):
        a, b = rng.permutation(["three_pass", "online", "exp_pair"])[:2]
        elem = "f32"
        if kind == "request-ignored":
            # The same request on an op that softmax-decompose lowers.
            if not include_known:
                return None
            elem = "f64" if vector_path else "f32"
        elif not vector_path:
            return None
        text = _row_op(op, elem, shape, dim,
                       f" algorithm({a}) {{softmax.strategy = "
                       f"#softmax.cpu_strategy<algorithm = {b}>}}")
        msg = f"'softmax.{op}' op strategy asks for algorithm {b}, but the op's algorithm is {a}"
    else:  # request-variant
        if not vector_path:
            return None
        a = str(rng.choice(["online", "exp_pair"]))
        v = str(rng.choice(["recompute", "reload", "tiled"]))
        text = _row_op(op, "f32", shape, dim,
                       f" algorithm({a}) {{softmax.strategy = "
                       f"#softmax.cpu_strategy<three_pass = {v}>}}")
        msg = f"'softmax.{op}' op strategy asks for three_pass = {v}, but the op's algorithm is {a}"
    return kind, text.replace("MSG", msg)
