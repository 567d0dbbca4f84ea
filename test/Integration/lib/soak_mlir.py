"""MLIR text shared by the differential soak's program kinds (diff_soak.py):
tensor types, bit-exact dense constants, and the printing of a result's
bit pattern that the runner output is read back from."""

from __future__ import annotations

import numpy as np

from softmax_check import quantize

#: Bits a result element travels as: f64 as i64, everything else widened to
#: f32 (exactly) and sent as i32.
IBITS = {"f32": 32, "bf16": 32, "f16": 32, "f64": 64}


def ttype(shape: tuple[int | None, ...], elem: str) -> str:
    dims = "x".join("?" if d is None else str(d) for d in shape)
    return f"tensor<{dims}x{elem}>" if dims else f"tensor<{elem}>"


def dense(values: np.ndarray, elem: str) -> str:
    """A dense constant holding exactly ``values`` (already rounded to
    ``elem``; i1 for booleans). Empty tensors get ``dense<>``: the hex form
    needs at least one element."""
    if values.size == 0:
        return "dense<>"
    if elem == "i1":
        # i1 elements are packed 8 to a byte, first element in the low bit
        # (as attention_check.py writes them).
        raw = np.packbits(np.asarray(values, dtype=np.uint8).ravel(),
                          bitorder="little").tobytes()
    else:
        _, raw = quantize(np.asarray(values, dtype=np.float64), elem)
    return f'dense<"0x{raw.hex().upper()}">'


def print_bits(lines: list[str], v: str, shape: tuple[int, ...], elem: str, tag: str) -> None:
    """Append to ``lines`` the code that prints the bit pattern of the
    tensor ``v`` (printMemrefI32, or printMemrefI64 for f64)."""
    bits = IBITS[elem]
    ib = f"i{bits}"
    ty, ity = ttype(shape, elem), ttype(shape, ib)
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    amap = f"affine_map<({dims}) -> ({dims})>"
    its = ", ".join(['"parallel"'] * rank)
    lines.append(f"  %bi_{tag} = tensor.empty() : {ity}")
    lines.append(f"  %b_{tag} = linalg.generic {{indexing_maps = [{amap}, {amap}], "
                 f"iterator_types = [{its}]}} ins({v} : {ty}) outs(%bi_{tag} : {ity}) {{")
    lines.append(f"  ^bb0(%a: {elem}, %o: {ib}):")
    if elem in ("f32", "f64"):
        lines.append(f"    %c = arith.bitcast %a : {elem} to {ib}")
    else:
        lines.append(f"    %f = arith.extf %a : {elem} to f32")
        lines.append("    %c = arith.bitcast %f : f32 to i32")
    lines.append(f"    linalg.yield %c : {ib}")
    lines.append(f"  }} -> {ity}")
    mty = ity.replace("tensor<", "memref<")
    uty = f"memref<*x{ib}>"
    lines.append(f"  %m_{tag} = bufferization.to_buffer %b_{tag} : {ity} to {mty}")
    lines.append(f"  %u_{tag} = memref.cast %m_{tag} : {mty} to {uty}")
    lines.append(f"  call @printMemrefI{bits}(%u_{tag}) : ({uty}) -> ()")


PRELUDE = ("func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}\n"
           "func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}")
