"""run_cpu(): a tiny softmax, executed, matches numpy."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

import softmax_mlir as sm

np = pytest.importorskip("numpy")

ROWS = [
    [1.0, 2.0, 3.0, 4.0, -1.5, 0.25, 7.0],
    [-1e4, 1e4, 3.0, -2.0, 9999.0, 0.0, 1e-30],
    [-math.inf, 0.5, -math.inf, -3.0, -math.inf, 2.0, 1.0],
    [-math.inf] * 7,
]


def module(ops: list[str], algorithm: str, masked: str, form: str = "dialect") -> str:
    """A module computing each of ``ops`` over ROWS and printing the result
    bits (one printMemrefI32 per op, in order)."""
    r, n = len(ROWS), len(ROWS[0])
    raw = b"".join(struct.pack("<f", v) for row in ROWS for v in row)
    xt = f"tensor<{r}x{n}xf32>"
    body = []
    for i, op in enumerate(ops):
        yt = f"tensor<{r}xf32>" if op == "logsumexp" else xt
        it = yt.replace("f32>", "i32>")
        mt = it.replace("tensor", "memref")
        rank = 1 if op == "logsumexp" else 2
        dims = ", ".join(f"d{i}" for i in range(rank))
        amap = f"affine_map<({dims}) -> ({dims})>"
        its = ", ".join(['"parallel"'] * rank)
        if form == "dialect":
            compute = (
                f"%y{i} = softmax.{op} ins(%x : {xt}) outs(%e{i} : {yt}) dimension(1) "
                f"masked({masked}) algorithm({algorithm})"
            )
        else:
            compute = (
                f"%y{i} = linalg.softmax dimension(1) ins(%x : {xt}) outs(%e{i} : {yt}) -> {yt}"
            )
        body.append(f"""
  %e{i} = tensor.empty() : {yt}
  {compute}
  %bi{i} = tensor.empty() : {it}
  %b{i} = linalg.generic {{indexing_maps = [{amap}, {amap}], iterator_types = [{its}]}}
      ins(%y{i} : {yt}) outs(%bi{i} : {it}) {{
  ^bb0(%a: f32, %o: i32):
    %c = arith.bitcast %a : f32 to i32
    linalg.yield %c : i32
  }} -> {it}
  %m{i} = bufferization.to_buffer %b{i} : {it} to {mt}
  %u{i} = memref.cast %m{i} : {mt} to memref<*xi32>
  call @printMemrefI32(%u{i}) : (memref<*xi32>) -> ()""")
    return f"""
func.func private @printMemrefI32(memref<*xi32>) attributes {{llvm.emit_c_interface}}
func.func @main() {{
  %x = arith.constant dense<"0x{raw.hex().upper()}"> : {xt}{"".join(body)}
  return
}}
"""


def reference(op: str, masked: str) -> "np.ndarray":
    x = np.array(ROWS, dtype=np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        m = x.max(axis=1, keepdims=True)
        ms = np.where(np.isneginf(m), 0.0, m)
        s = np.exp(x - ms).sum(axis=1, keepdims=True)
        y = {
            "softmax": np.exp(x - ms) / s,
            "log_softmax": x - ms - np.log(s),
            "logsumexp": (ms + np.log(s))[:, 0],
        }[op]
    fill = np.nan if masked == "nan" else (0.0 if op == "softmax" else -np.inf)
    y[np.isneginf(m[:, 0])] = fill
    return y


def results(out: str) -> "list[np.ndarray]":
    arrays = []
    for mem in sm.parse_memrefs(out):
        bits = np.array(mem.data, dtype=np.int64).astype(np.uint32)
        arrays.append(bits.view(np.float32).astype(np.float64).reshape(mem.sizes))
    return arrays


OPS = ["softmax", "log_softmax", "logsumexp"]


@pytest.mark.parametrize("algorithm", ["three_pass", "online", "exp_pair"])
@pytest.mark.parametrize("tile", [0, 4])
def test_matches_numpy(softmax_opt: Path, mlir_runner: Path, algorithm: str, tile: int) -> None:
    ys = results(sm.run_cpu(module(OPS, algorithm, "zero"), reduction_tile_size=tile))
    assert len(ys) == len(OPS)
    for op, y in zip(OPS, ys):
        np.testing.assert_allclose(y, reference(op, "zero"), rtol=2e-6, atol=1e-7, err_msg=op)


@pytest.mark.parametrize(
    "options",
    [
        {"vector_width": 0},
        {"vector_width": 4, "three_pass": "reload"},
        {"vector_width": 4, "three_pass": "tiled"},
        {"vector_width": 8, "threads": 2},
    ],
    ids=["scalar", "w4-reload", "w4-tiled", "w8-threads2"],
)
def test_cpu_options(softmax_opt: Path, mlir_runner: Path, options: dict) -> None:
    ys = results(sm.run_cpu(module(OPS, "three_pass", "zero"), **options))
    for op, y in zip(OPS, ys):
        np.testing.assert_allclose(y, reference(op, "zero"), rtol=2e-6, atol=1e-7, err_msg=op)


def test_cpu_options_rejected() -> None:
    with pytest.raises(ValueError):
        sm.pipelines.to_cpu_args(threads=-1)
    with pytest.raises(ValueError):
        sm.pipelines.to_cpu_args(vector_width=-2)


def test_masked_nan(softmax_opt: Path, mlir_runner: Path) -> None:
    ys = results(sm.run_cpu(module(OPS, "online", "nan")))
    for op, y in zip(OPS, ys):
        assert np.isnan(y[3]).all(), op
        np.testing.assert_allclose(y[:3], reference(op, "nan")[:3], rtol=2e-6, atol=1e-7)


def test_linalg_softmax_raised(softmax_opt: Path, mlir_runner: Path) -> None:
    [y] = results(
        sm.run_cpu(module(["softmax"], "", "nan", form="linalg"), raise_linalg=True,
                   algorithm="three_pass")
    )
    np.testing.assert_allclose(y, reference("softmax", "nan"), rtol=2e-6, atol=1e-7)


def test_printed_f32_parses(softmax_opt: Path, mlir_runner: Path) -> None:
    text = module(["softmax"], "three_pass", "zero").replace("I32", "F32")
    text = text.replace("xi32", "xf32").replace("arith.bitcast %a : f32 to i32", "arith.addf %a, %a : f32")
    text = text.replace("%o: i32", "%o: f32").replace("linalg.yield %c : i32", "linalg.yield %c : f32")
    [mem] = sm.parse_memrefs(sm.run_cpu(text))
    assert mem.sizes == (4, 7)
    y = np.array(mem.tolist())
    np.testing.assert_allclose(y, 2 * reference("softmax", "zero"), rtol=1e-5, atol=1e-6)


def test_runtime_error_is_exception(softmax_opt: Path, mlir_runner: Path) -> None:
    with pytest.raises(sm.SoftmaxMLIRError) as info:
        sm.run_cpu(module(["softmax"], "online", "zero"), entry="no_such_function")
    assert info.value.returncode not in (None, 0)


def test_prints_in_order(softmax_opt: Path, mlir_runner: Path) -> None:
    """A benchmark's output: a softmax row, a bare f64 (a time) and an i64
    memref, in program order; the time ends the memref before it."""
    text = """
func.func private @printF64(f64)
func.func private @printNewline()
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}
func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %y = softmax.softmax ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) dimension(1) masked(zero) algorithm(online)
  %m = bufferization.to_buffer %y : tensor<2x3xf32> to memref<2x3xf32>
  %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %t = arith.constant 0.125 : f64
  call @printF64(%t) : (f64) -> ()
  call @printNewline() : () -> ()
  %c = arith.constant dense<[7, -3]> : tensor<2xi64>
  %cm = bufferization.to_buffer %c : tensor<2xi64> to memref<2xi64>
  %cu = memref.cast %cm : memref<2xi64> to memref<*xi64>
  call @printMemrefI64(%cu) : (memref<*xi64>) -> ()
  return
}
"""
    items = sm.parse_prints(sm.run_cpu(text))
    assert len(items) == 3
    y, t, c = items
    assert isinstance(y, sm.Memref) and y.sizes == (2, 3)
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]])
    ref = np.exp(x - x.max(1, keepdims=True))
    # printMemrefF32 prints six significant digits.
    np.testing.assert_allclose(np.array(y.tolist()), ref / ref.sum(1, keepdims=True),
                               rtol=1e-5)
    assert t == 0.125
    assert isinstance(c, sm.Memref) and c.sizes == (2,) and c.data == (7.0, -3.0)
