"""Random softmax / log_softmax / logsumexp programs for the differential
soak (diff_soak.py): drawing, MLIR text, reference and check.

A program is one ``func.func`` holding one op on one input tensor of rank
1 to 4 (dimensions of size 0, 1, primes, odd sizes), reduced along any of
its dimensions, in f32, bf16, f16 or f64, with any algorithm (or ``auto``),
masked mode, ``acc_type``, destination (empty, NaN-filled, the input
itself), static or dynamic types, and optionally a per-op
``#softmax.cpu_strategy`` request. Every reduction gets one row of
softmax_check.py's kinds (random and hostile values, never all zeros),
rounded to the input type once; the reference is softmax_check's, in long
double, with its metric and bounds.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from soak_mlir import dense, print_bits, ttype
from softmax_check import DTYPE_INFO, bound_for, make_rows, quantize, reference, row_errors

ROW_OPS = ("softmax", "log_softmax", "logsumexp")
ALGORITHMS = ("auto", "three_pass", "online", "exp_pair")
# Dimension sizes: 0 and 1, primes, powers of two and their neighbours.
SMALL_DIMS = (0, 1, 1, 2, 3, 4, 5, 7, 8, 13, 16, 17)
ROW_LENGTHS = (0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 100, 127, 131, 257, 521,
               1024, 1031, 2053)
#: Elements of one program's input at most (keeps a module's constants and
#: its run short).
MAX_ELEMENTS = 6000


@dataclasses.dataclass
class RowProgram:
    name: str
    op: str
    dtype: str
    shape: tuple[int, ...]
    dim: int
    algorithm: str
    masked: str
    acc_type: str | None
    init: str                 # empty, nan, alias
    dynamic: tuple[bool, ...]  # per dimension: dynamic in the function's types
    strategy: str | None      # the #softmax.cpu_strategy<...> request, or None
    rows: np.ndarray          # (R, n) exact input values, R reductions of n
    kinds: list[str]

    # ------------------------------------------------------------------ text
    @property
    def out_shape(self) -> tuple[int, ...]:
        if self.op == "logsumexp":
            return tuple(d for i, d in enumerate(self.shape) if i != self.dim)
        return self.shape

    def input_tensor(self) -> np.ndarray:
        """The rows laid out in the input's shape: reductions along ``dim``."""
        other = [d for i, d in enumerate(self.shape) if i != self.dim]
        a = self.rows.reshape(*other, self.shape[self.dim])
        return np.ascontiguousarray(np.moveaxis(a, -1, self.dim))

    def summary(self) -> str:
        parts = [self.op, self.dtype, "x".join(map(str, self.shape)) or "scalar",
                 f"dim={self.dim}", f"algorithm={self.algorithm}", f"masked={self.masked}"]
        if self.acc_type:
            parts.append(f"acc_type={self.acc_type}")
        if self.init != "empty":
            parts.append(f"init={self.init}")
        if any(self.dynamic):
            parts.append("dynamic=" + "".join("?" if d else "s" for d in self.dynamic))
        if self.strategy:
            parts.append(f"strategy={self.strategy}")
        return " ".join(parts)

    def types(self) -> tuple[tuple, tuple]:
        """The function's input and output shapes (None: dynamic)."""
        ish = tuple(None if dy else d for d, dy in zip(self.shape, self.dynamic))
        osh = tuple(d for i, d in enumerate(ish) if i != self.dim) \
            if self.op == "logsumexp" else ish
        return ish, osh

    def func_text(self) -> str:
        ish, osh = self.types()
        ity, oty = ttype(ish, self.dtype), ttype(osh, self.dtype)
        lines = [f"func.func @{self.name}(%x: {ity}) -> {oty} {{"]
        dyn = []
        for i in range(len(self.shape)):
            if self.dynamic[i] and not (self.op == "logsumexp" and i == self.dim):
                lines.append(f"  %c{i} = arith.constant {i} : index")
                lines.append(f"  %d{i} = tensor.dim %x, %c{i} : {ity}")
                dyn.append(f"%d{i}")
        if self.init == "alias" and self.op != "logsumexp":
            init = "%x"
        else:
            lines.append(f"  %e = tensor.empty({', '.join(dyn)}) : {oty}")
            init = "%e"
            if self.init == "nan":
                # The destination holds NaN: the op must overwrite it.
                nan = {"f32": "0x7FC00000", "f64": "0x7FF8000000000000",
                       "f16": "0x7E00", "bf16": "0x7FC0"}[self.dtype]
                lines.append(f"  %g = arith.constant {nan} : {self.dtype}")
                lines.append(f"  %i = linalg.fill ins(%g : {self.dtype}) outs(%e : {oty}) "
                             f"-> {oty}")
                init = "%i"
        alg = "" if self.algorithm == "auto" else f" algorithm({self.algorithm})"
        attrs = []
        if self.acc_type:
            attrs.append(f"acc_type = {self.acc_type}")
        if self.strategy:
            attrs.append(f"softmax.strategy = {self.strategy}")
        attr = f" {{{', '.join(attrs)}}}" if attrs else ""
        lines.append(f"  %y = softmax.{self.op} ins(%x : {ity}) outs({init} : {oty}) "
                     f"dimension({self.dim}) masked({self.masked}){alg}{attr}")
        lines.append(f"  return %y : {oty}")
        lines.append("}")
        return "\n".join(lines)

    def main_lines(self, tag: str) -> tuple[list[str], int]:
        """Code in ``main`` that calls the program and prints its result;
        the number of memrefs it prints."""
        sty, soty = ttype(self.shape, self.dtype), ttype(self.out_shape, self.dtype)
        lines = [f"  %x_{tag} = arith.constant {dense(self.input_tensor(), self.dtype)} : {sty}"]
        if any(self.dynamic):
            ish, osh = self.types()
            dty, doty = ttype(ish, self.dtype), ttype(osh, self.dtype)
            lines.append(f"  %xd_{tag} = tensor.cast %x_{tag} : {sty} to {dty}")
            lines.append(f"  %yd_{tag} = call @{self.name}(%xd_{tag}) : ({dty}) -> {doty}")
            lines.append(f"  %y_{tag} = tensor.cast %yd_{tag} : {doty} to {soty}")
        else:
            lines.append(f"  %y_{tag} = call @{self.name}(%x_{tag}) : ({sty}) -> {soty}")
        print_bits(lines, f"%y_{tag}", self.out_shape, self.dtype, tag)
        return lines, 1

    # ----------------------------------------------------------------- check
    def check(self, outs: list[np.ndarray], wrong_reference: bool = False) -> list[str]:
        """Compares the printed result with the float64 reference; returns
        what is wrong (empty: the program passes)."""
        (y,) = outs
        if tuple(y.shape) != self.out_shape:
            return [f"result shape {tuple(y.shape)}, expected {self.out_shape}"]
        r, n = self.rows.shape
        if self.op == "logsumexp":
            y = y.reshape(r)
        else:
            y = np.moveaxis(y, self.dim, -1).reshape(r, n)
        if r == 0 or (n == 0 and self.op != "logsumexp"):
            return []  # nothing computed; the shape was checked
        if n == 0:
            # An empty reduction sums to 0, like a row of -inf: the masked
            # value.
            ref = np.full(r, np.nan if self.masked == "nan" else -np.inf)
        else:
            ref = reference(self.op, self.rows, self.masked)
        if wrong_reference:
            # --wrong-reference: a deliberately wrong reference, to show the
            # soak can fail.
            ref = ref * (1 + 1e-3) + 1e-3
        info = DTYPE_INFO[self.dtype]
        bound = bound_for(self.dtype)
        err, mism = row_errors(self.op, y, ref, info.fmax)
        problems = []
        for i in np.nonzero(mism | ~(err <= bound))[0][:3]:
            if self.op == "logsumexp":
                what = f"got {y[i]!r} expected {ref[i]!r}"
            else:
                with np.errstate(all="ignore"):
                    d = np.where((y[i] == ref[i]) | (np.isnan(y[i]) & np.isnan(ref[i])), 0.0,
                                 np.where(np.isfinite(y[i]) & np.isfinite(ref[i]),
                                          np.abs(y[i] - ref[i]), np.inf))
                j = int(np.argmax(d))
                what = (f"element {j}: x={self.rows[i, j]!r} got {y[i, j]!r} "
                        f"expected {ref[i, j]!r}")
            problems.append(f"reduction {i} (kind {self.kinds[i]}, n={n}): err {err[i]:.3e} "
                            f"(bound {bound:.0e}){' non-finite mismatch' if mism[i] else ''}; "
                            f"{what}")
        nbad = int(np.count_nonzero(mism | ~(err <= bound)))
        if nbad > 3:
            problems.append(f"... {nbad} reductions failed in all")
        return problems


def draw_shape(rng: np.random.Generator) -> tuple[tuple[int, ...], int]:
    """A shape of rank 1 to 4 and its reduced dimension."""
    rank = int(rng.choice([1, 2, 2, 2, 3, 3, 4]))
    dim = int(rng.integers(rank)) if rng.random() < 0.5 else rank - 1
    while True:
        n = int(rng.choice(ROW_LENGTHS))
        shape = [int(rng.choice(SMALL_DIMS)) for _ in range(rank)]
        shape[dim] = n
        # Leading dimensions of size 0 only now and then: most programs
        # should compute something.
        for i in range(rank):
            if i != dim and shape[i] == 0 and rng.random() < 0.7:
                shape[i] = 3
        if int(np.prod(shape)) <= MAX_ELEMENTS:
            return tuple(shape), dim


def draw_strategy(rng: np.random.Generator, algorithm: str) -> str | None:
    """A per-op request, or None: a random subset of the CPU strategy's
    fields with valid values."""
    if rng.random() >= 0.3:
        return None
    fields = []
    if algorithm != "auto" and rng.random() < 0.3:
        fields.append(f"algorithm = {algorithm}")
    if rng.random() < 0.7:
        fields.append(f"vector_width = {int(rng.choice([1, 2, 4, 8, 16, 32, 64]))}")
    if rng.random() < 0.5:
        fields.append(f"unroll = {int(rng.choice([1, 2, 3, 4, 5, 8, 16]))}")
    if rng.random() < 0.4:
        fields.append(f"block = {int(rng.choice([1, 2, 3, 7, 16, 64]))}")
    if algorithm == "three_pass" and rng.random() < 0.6:
        fields.append(f"three_pass = {rng.choice(['recompute', 'reload', 'tiled'])}")
    if rng.random() < 0.4:
        fields.append(f"exp = {rng.choice(['fast', 'polynomial'])}")
    return f"#softmax.cpu_strategy<{', '.join(fields)}>"


def draw(rng: np.random.Generator, name: str, op: str) -> RowProgram:
    dtype = str(rng.choice(["f32", "f32", "f32", "bf16", "f16", "f64"]))
    shape, dim = draw_shape(rng)
    algorithm = str(rng.choice(ALGORITHMS))
    masked = str(rng.choice(["zero", "nan"]))
    acc_type = None
    if dtype == "f64":
        acc_type = "f64" if rng.random() < 0.3 else None
    elif rng.random() < 0.1:
        acc_type = str(rng.choice(["f32", "f64"]))
    init = str(rng.choice(["empty", "empty", "nan", "alias"]))
    if op == "logsumexp" and init == "alias":
        init = "empty"
    # All dimensions dynamic, some (a mix of static and dynamic sizes, with
    # 0 among them, collapsed wrongly once: collapse-empty-dynamic.mlir), or
    # none.
    u = rng.random()
    if u < 0.2:
        dynamic = (True,) * len(shape)
    elif u < 0.3:
        dynamic = tuple(bool(b) for b in rng.random(len(shape)) < 0.5)
    else:
        dynamic = (False,) * len(shape)
    strategy = draw_strategy(rng, algorithm)
    n = shape[dim]
    r = int(np.prod(shape)) // n if n else int(np.prod([d for i, d in enumerate(shape)
                                                          if i != dim]))
    info = DTYPE_INFO[dtype]
    pool: list[tuple[str, np.ndarray]] = []
    while len(pool) < r:
        pool += make_rows(rng, n, info, None, set()) if n else [("empty", np.zeros(0))]
    pick = rng.permutation(len(pool))[:r]
    kinds = [pool[i][0] for i in pick]
    rows = np.stack([pool[i][1] for i in pick]) if r else np.zeros((0, n))
    rows, _ = quantize(rows.reshape(r, n), dtype)
    return RowProgram(name, op, dtype, shape, dim, algorithm, masked, acc_type, init,
                      dynamic, strategy, rows, kinds)
