#!/usr/bin/env python3
"""GPU softmax benchmark of softmax-mlir's compiled kernels against PyTorch and
Triton, in one process.

What it does (see bench/gpu/README.md):

1. Measures the device copy bandwidth (torch ``copy_`` of a 1 GiB buffer,
   bytes read + written over the median time): the ceiling.
2. For every case (op x shape x dtype) runs our kernels (``_mlir_ciface_*``
   functions of ``libsoftmax_kernels.so``, launched through
   ``libsoftmax_cuda_runtime.so`` on torch's current stream), ``torch.softmax``
   (or ``log_softmax`` / ``logsumexp``), a fused Triton kernel (one program
   per row, the whole row in registers) and an online Triton kernel (one
   program per row, one pass for a running max and sum, a second pass for the
   outputs).
3. Checks every result against a float64 reference computed on the GPU, on
   random rows (``randn * 3``) and on a second input with hostile rows mixed
   in (all -inf, +-1e4, one finite element, ...). Metric per row: softmax
   ``max|y - ref| / max|ref|``; log_softmax and logsumexp
   ``max |y - ref| / max(1, |ref|)``; bounds f32 1e-6, bf16 1e-2. Rows that
   are all -inf ("masked") are checked separately: our kernels must give the
   documented ``masked`` fill (zero mode: softmax 0, log_softmax/logsumexp
   -inf); what the baselines give there (NaN) is only reported.
4. Times each kernel with CUDA events (warm-up, then the median of ``--iters``
   iterations) and reports GB/s and ratios to the baselines and to the copy.
5. Prints markdown tables and writes ``gpu_softmax.json`` / ``gpu_softmax.md``
   to ``$OUT`` (or ``--out``, else ``.``), after every case.

Exit status: 0 when all of our kernels that were run pass their checks, 1 when
one fails or errors, 2 on bad usage, 3 when our libraries could not be loaded.
Baseline failures are reported, never fatal.

``--self-test`` checks the pure-Python parts without torch; ``--dry-run``
prints the plan (kernels discovered, cases) without torch; ``--device cpu``
runs the torch baseline and (host-pointer) kernel libraries on the CPU with
small shapes, to test the harness without a GPU.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import datetime
import json
import math
import os
import platform
import re
import shlex
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable

# Triton is optional (absent on the CPU machines); the kernels are defined only
# when it imports.
try:  # pragma: no cover - depends on the machine
    if os.environ.get("SOFTMAX_BENCH_NO_TRITON"):
        raise ImportError("disabled by SOFTMAX_BENCH_NO_TRITON")
    import triton  # type: ignore
    import triton.language as tl  # type: ignore
    TRITON_IMPORT_ERROR = ""
except Exception as _e:  # noqa: BLE001 - any failure means "no Triton"
    triton = None  # type: ignore
    tl = None  # type: ignore
    TRITON_IMPORT_ERROR = f"{type(_e).__name__}: {_e}"

# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------

OPS = ("softmax", "log_softmax", "logsumexp")
OP_CODE = {"softmax": 0, "log_softmax": 1, "logsumexp": 2}
ALL_DTYPES = ("f32", "bf16", "f16")
DEFAULT_DTYPES = ("f32", "bf16")
DEFAULT_SHAPES = ((16384, 1024), (8192, 8192), (4096, 32768), (512, 262144))
CPU_SHAPES = ((64, 1000), (16, 4096))
KERNEL_KINDS = ("ours", "triton_fused", "triton_online", "torch")
BASELINES = ("triton_fused", "triton_online", "torch")
ELEM_SIZE = {"f32": 4, "bf16": 2, "f16": 2, "f64": 8}
BOUNDS = {"f32": 1e-6, "bf16": 1e-2, "f16": 2e-3, "f64": 1e-14}
FLT_MAX = 3.4028234663852886e38

# DESIGN.md section 6 (H200, 2026-11-30): the numbers to beat, GB/s.
COPY_ANCHOR_GBPS = 4222.0
ANCHORS: dict[tuple[str, str, str], dict[str, float]] = {
    ("softmax", "f32", "8192x8192"): {"triton_fused": 3987.0, "torch": 1914.0},
    ("softmax", "f32", "4096x32768"): {"triton_fused": 4044.0, "torch": 2620.0},
    ("softmax", "f32", "512x262144"): {"triton_online": 2676.0, "torch": 2062.0},
    ("softmax", "bf16", "8192x8192"): {"triton_fused": 3852.0, "torch": 1040.0},
}

DEFAULT_ONLINE_CONFIGS = "4096:8,8192:8,8192:16"
KERNELS_JSON = "kernels.json"
KERNEL_LIB = "libsoftmax_kernels.so"
RUNTIME_LIB = "libsoftmax_cuda_runtime.so"
CIFACE = "_mlir_ciface_"
SYMBOL_RE = re.compile(
    r"^_mlir_ciface_(softmax|log_softmax|logsumexp)_(f32|bf16|f16|f64)_(\d+)x(\d+)"
    r"(?:_([A-Za-z0-9_]+))?$")

# Hostile rows of the second correctness input, placed evenly over the rows
# (the first and the last row are all -inf).
HOSTILE_KINDS = (
    "all_neg_inf", "pm1e4_sprinkled", "single_finite", "pm1e4_only",
    "shift_pos_1e4", "half_neg_inf", "constant", "single_finite_last",
    "all_neg_inf", "shift_neg_1e4", "tiny_range", "all_neg_inf",
)


# ---------------------------------------------------------------------------
# Memref descriptors (MLIR's llvm.emit_c_interface ABI)
# ---------------------------------------------------------------------------


class MemRef1D(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 1),
                ("strides", ctypes.c_int64 * 1)]


class MemRef2D(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 2),
                ("strides", ctypes.c_int64 * 2)]


def make_memref(ptr: int, sizes: Iterable[int], strides: Iterable[int],
                offset: int = 0) -> ctypes.Structure:
    """A ranked memref descriptor over ``ptr`` (sizes/strides in elements)."""
    sizes, strides = list(sizes), list(strides)
    if len(sizes) != len(strides) or len(sizes) not in (1, 2):
        raise ValueError(f"rank-1/2 memrefs only: sizes={sizes} strides={strides}")
    cls = MemRef1D if len(sizes) == 1 else MemRef2D
    d = cls()
    d.allocated = ptr
    d.aligned = ptr
    d.offset = offset
    for i, (s, st) in enumerate(zip(sizes, strides)):
        d.sizes[i] = s
        d.strides[i] = st
    return d


# ---------------------------------------------------------------------------
# Kernel discovery
# ---------------------------------------------------------------------------


@dataclasses.dataclass
class OurKernel:
    symbol: str            # full exported symbol, _mlir_ciface_...
    op: str
    dtype: str
    rows: int
    cols: int
    variant: str = ""      # name suffix after the shape, "" for the main one
    masked: str = "zero"   # fill of all -inf rows: "zero" or "nan"
    out_dtype: str = ""    # "" = the input dtype
    info: dict = dataclasses.field(default_factory=dict)  # strategy etc.
    source: str = ""       # kernels.json / dynsym / nm / probe

    @property
    def name(self) -> str:
        return self.symbol[len(CIFACE):] if self.symbol.startswith(CIFACE) else self.symbol

    @property
    def label(self) -> str:
        return "ours" if not self.variant else f"ours:{self.variant}"

    @property
    def shape(self) -> str:
        return f"{self.rows}x{self.cols}"

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        d["name"] = self.name
        d["label"] = self.label
        return d


def parse_symbol(sym: str) -> OurKernel | None:
    m = SYMBOL_RE.match(sym)
    if not m:
        return None
    op, dtype, r, c, variant = m.groups()
    return OurKernel(symbol=sym, op=op, dtype=dtype, rows=int(r), cols=int(c),
                     variant=variant or "")


def read_elf_dynsyms(path: str | os.PathLike) -> list[str]:
    """Names of the defined symbols in the dynamic symbol table of a 64-bit
    little-endian ELF file (what ``nm -D --defined-only`` lists)."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for i in range(e_shnum):
        off = e_shoff + i * e_shentsize
        (sh_name, sh_type, _flags, _addr, sh_offset, sh_size, sh_link, _info,
         _align, sh_entsize) = struct.unpack_from("<IIQQQQIIQQ", data, off)
        sections.append((sh_type, sh_offset, sh_size, sh_link, sh_entsize))
    names: list[str] = []
    for sh_type, sh_offset, sh_size, sh_link, sh_entsize in sections:
        if sh_type != 11:  # SHT_DYNSYM
            continue
        _t, str_off, str_size, _l, _e = sections[sh_link]
        strtab = data[str_off:str_off + str_size]
        entsize = sh_entsize or 24
        for j in range(1, sh_size // entsize):
            st_name, st_info, _other, st_shndx, _value, _size = struct.unpack_from(
                "<IBBHQQ", data, sh_offset + j * entsize)
            if st_shndx == 0:  # undefined
                continue
            end = strtab.find(b"\0", st_name)
            names.append(strtab[st_name:end].decode("utf-8", "replace"))
    return names


def nm_dynsyms(path: str | os.PathLike) -> list[str] | None:
    try:
        out = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return parse_nm_output(out.stdout)


def parse_nm_output(text: str) -> list[str]:
    names = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[-2] not in ("U", "w", "v"):
            names.append(parts[-1].split("@")[0])
    return names


def kernel_from_json_entry(e: dict) -> OurKernel:
    if not isinstance(e, dict):
        raise ValueError(f"kernels.json entry is not an object: {e!r}")
    name = e.get("symbol") or e.get("name")
    if not name:
        raise ValueError(f"kernels.json entry without a name: {e!r}")
    sym = name if name.startswith(CIFACE) else CIFACE + name
    parsed = parse_symbol(sym)
    shape = e.get("shape")
    rows = e.get("rows", shape[0] if shape else (parsed.rows if parsed else None))
    cols = e.get("cols", shape[1] if shape else (parsed.cols if parsed else None))
    op = e.get("op", parsed.op if parsed else None)
    dtype = e.get("dtype", parsed.dtype if parsed else None)
    if None in (rows, cols, op, dtype):
        raise ValueError(f"kernels.json entry {name!r}: op/dtype/rows/cols missing and "
                         "not in the name pattern")
    if op not in OPS:
        raise ValueError(f"kernels.json entry {name!r}: unknown op {op!r}")
    known = {"symbol", "name", "shape", "rows", "cols", "op", "dtype", "variant", "masked",
             "out_dtype"}
    variant = e.get("variant", parsed.variant if parsed else "")
    masked = e.get("masked", "zero")
    if isinstance(masked, bool):
        masked = "zero" if masked else "nan"
    return OurKernel(symbol=sym, op=op, dtype=dtype, rows=int(rows), cols=int(cols),
                     variant=variant or "", masked=str(masked),
                     out_dtype=e.get("out_dtype", "") or "",
                     info={k: v for k, v in e.items() if k not in known},
                     source=KERNELS_JSON)


def load_kernels_json(path: str | os.PathLike) -> list[OurKernel]:
    doc = json.loads(Path(path).read_text())
    entries = doc.get("kernels", doc) if isinstance(doc, dict) else doc
    if isinstance(entries, dict):  # {"name": {...}, ...}
        entries = [dict(v, name=v.get("name", k)) for k, v in entries.items()]
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected a list of kernels")
    return [kernel_from_json_entry(e) for e in entries]


def discover_kernels(lib_dir: Path) -> tuple[list[OurKernel], list[str], set[str] | None]:
    """Our kernels: those listed in kernels.json (when present), then every
    other exported symbol that matches the name pattern. Returns (kernels,
    notes, exported symbol set or None)."""
    notes: list[str] = []
    lib = lib_dir / KERNEL_LIB
    syms: set[str] | None = None
    if lib.exists():
        try:
            syms = set(read_elf_dynsyms(lib))
            how = "dynsym"
        except (ValueError, OSError, struct.error, IndexError) as e:
            notes.append(f"ELF reader failed on {lib}: {e}; trying nm")
            found = nm_dynsyms(lib)
            syms = set(found) if found is not None else None
            how = "nm"
        if syms is None:
            notes.append(f"could not list the symbols of {lib}; kernels found by probing only")
    else:
        notes.append(f"{lib} does not exist")
    kernels: list[OurKernel] = []
    js = lib_dir / KERNELS_JSON
    if js.exists():
        try:
            kernels = load_kernels_json(js)
            notes.append(f"{len(kernels)} kernels listed in {js}")
            if syms is not None:
                for k in kernels:
                    if k.symbol not in syms:
                        k.info["missing_symbol"] = True
        except (ValueError, OSError, TypeError, KeyError, IndexError) as e:
            notes.append(f"ignoring {js}: {e}")
            kernels = []
    if syms is not None:
        listed = {k.symbol for k in kernels}
        extra = []
        for s in sorted(syms):
            k = parse_symbol(s)
            if k and s not in listed:
                k.source = how
                extra.append(k)
        kernels += extra
        notes.append(f"{len(extra)} kernels found by symbol name in {lib}"
                     + (f" beyond {KERNELS_JSON}" if listed else ""))
    return kernels, notes, syms


# ---------------------------------------------------------------------------
# Selection: cases and kernels to run
# ---------------------------------------------------------------------------


def parse_shape(s: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)[xX](\d+)", s.strip())
    if not m:
        raise ValueError(f"bad shape {s!r} (want ROWSxCOLS)")
    return int(m.group(1)), int(m.group(2))


def csv(s: str | None) -> list[str]:
    return [t.strip() for t in (s or "").split(",") if t.strip()]


def classify_only(tokens: Iterable[str]) -> dict[str, list[str]]:
    """Sorts ``--only`` tokens into categories: shapes, dtypes, ops, kernels.
    Within a category tokens are alternatives; categories combine with AND."""
    out: dict[str, list[str]] = {"shapes": [], "dtypes": [], "ops": [], "kernels": []}
    for t in tokens:
        tl_ = t.lower()
        if re.fullmatch(r"\d+x\d+", tl_):
            out["shapes"].append(tl_)
        elif tl_ in ALL_DTYPES:
            out["dtypes"].append(tl_)
        elif tl_ in OPS:
            out["ops"].append(tl_)
        elif tl_ in KERNEL_KINDS:
            out["kernels"].append(tl_)
        elif tl_ == "triton":
            out["kernels"] += ["triton_fused", "triton_online"]
        elif tl_ in ("fused", "online"):
            out["kernels"].append("triton_" + tl_)
        else:
            raise ValueError(f"--only: unknown token {t!r} (shape ROWSxCOLS, dtype "
                             f"{'/'.join(ALL_DTYPES)}, op {'/'.join(OPS)}, kernel "
                             f"{'/'.join(KERNEL_KINDS)}/triton)")
    return out


@dataclasses.dataclass
class Plan:
    shapes: list[tuple[int, int]]
    dtypes: list[str]
    ops: list[str]
    kernels: list[str]

    def cases(self) -> list[tuple[str, tuple[int, int], str]]:
        # Shape-major, softmax first: other ops reuse softmax's tuning.
        return [(op, shape, dt) for shape in self.shapes for dt in self.dtypes
                for op in self.ops]


def make_plan(args: argparse.Namespace, ours: list[OurKernel]) -> Plan:
    only = classify_only(csv(args.only))
    if args.shapes:
        shapes = [parse_shape(s) for s in csv(args.shapes)]
    else:
        shapes = list(CPU_SHAPES if args.device == "cpu" else DEFAULT_SHAPES)
    dtypes = csv(args.dtypes) or list(DEFAULT_DTYPES)
    for d in dtypes:
        if d not in ALL_DTYPES:
            raise ValueError(f"unknown dtype {d!r}")
    kernels = csv(args.kernels) or list(KERNEL_KINDS)
    for k in kernels:
        if k not in KERNEL_KINDS:
            raise ValueError(f"unknown kernel kind {k!r}")
    if only["shapes"]:
        extra = [parse_shape(s) for s in only["shapes"]]
        shapes = [s for s in shapes if s in extra] or extra
    if only["dtypes"]:
        dtypes = [d for d in dtypes if d in only["dtypes"]] or only["dtypes"]
    if only["kernels"]:
        kernels = [k for k in KERNEL_KINDS if k in kernels and k in only["kernels"]]
    ops_arg = csv(args.ops) or ["auto"]
    if ops_arg == ["auto"]:
        have = {k.op for k in ours if (k.rows, k.cols) in shapes and k.dtype in dtypes}
        ops = [o for o in OPS if o == "softmax" or o in have]
    elif ops_arg == ["all"]:
        ops = list(OPS)
    else:
        for o in ops_arg:
            if o not in OPS:
                raise ValueError(f"unknown op {o!r}")
        ops = [o for o in OPS if o in ops_arg]
    if only["ops"]:
        ops = [o for o in OPS if o in only["ops"]]
    return Plan(shapes, dtypes, ops, kernels)


def ours_for(ours: list[OurKernel], op: str, shape: tuple[int, int],
             dtype: str) -> list[OurKernel]:
    ks = [k for k in ours if k.op == op and (k.rows, k.cols) == shape and k.dtype == dtype]
    return sorted(ks, key=lambda k: (k.variant != "", k.variant))


def parse_online_configs(s: str) -> list[tuple[int, int, bool]]:
    """"TILE:WARPS[:f|r],..." -> [(tile, warps, reverse_second_pass)]."""
    out = []
    for tok in csv(s):
        parts = tok.split(":")
        if len(parts) not in (2, 3):
            raise ValueError(f"bad online config {tok!r} (want TILE:WARPS[:f|r])")
        tile, warps = int(parts[0]), int(parts[1])
        if tile <= 0 or tile & (tile - 1):
            raise ValueError(f"online tile {tile} is not a power of two")
        rev = True if len(parts) == 2 else {"r": True, "f": False}[parts[2]]
        out.append((tile, warps, rev))
    if not out:
        raise ValueError("no online configs")
    return out


def next_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def fused_warps(block: int) -> int:
    # As in Triton's softmax tutorial.
    return 16 if block >= 4096 else 8 if block >= 2048 else 4


def online_configs_for(cols: int, configs: list[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    """Configs with the tile capped at the row length (deduplicated)."""
    seen, out = set(), []
    cap = next_pow2(cols)
    for tile, warps, rev in configs:
        c = (min(tile, cap), warps, rev)
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def bytes_moved(op: str, rows: int, cols: int, in_dtype: str, out_dtype: str | None = None) -> int:
    es_in = ELEM_SIZE[in_dtype]
    es_out = ELEM_SIZE[out_dtype or in_dtype]
    if op == "logsumexp":
        return rows * cols * es_in + rows * es_out
    return rows * cols * (es_in + es_out)


# ---------------------------------------------------------------------------
# Small helpers: statistics, formatting, output
# ---------------------------------------------------------------------------


def percentile(xs: list[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 100]."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    pos = (len(s) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summarize_times(ms: list[float]) -> dict:
    us = [t * 1000.0 for t in ms]
    return {"n": len(us), "median_us": percentile(us, 50), "min_us": min(us),
            "max_us": max(us), "p10_us": percentile(us, 10), "p90_us": percentile(us, 90)}


def fmt(x: Any, digits: int = 0, suffix: str = "") -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return f"{x:.{digits}f}{suffix}"
    return f"{x}{suffix}"


def fmt_err(x: float | None) -> str:
    if x is None:
        return "-"
    if math.isinf(x) or math.isnan(x):
        return fmt(x)
    return f"{x:.1e}"


def md_table(headers: list[str], rows: list[list[Any]], align: str | None = None) -> str:
    """A GitHub markdown table. ``align``: one char per column, 'l' or 'r'."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    for r in cells:
        if len(r) != len(headers):
            raise ValueError(f"row has {len(r)} cells, want {len(headers)}: {r}")
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" * len(headers)

    def line(r: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if a == "r" else c.ljust(w)
                                 for c, w, a in zip(r, widths, align)) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2))
                         for w, a in zip(widths, align)) + "|"
    return "\n".join([line(cells[0]), sep] + [line(r) for r in cells[1:]])


def sanitize(o: Any) -> Any:
    """JSON-safe copy: non-finite floats become strings."""
    if isinstance(o, float):
        return o if math.isfinite(o) else ("nan" if math.isnan(o) else ("inf" if o > 0 else "-inf"))
    if isinstance(o, dict):
        return {str(k): sanitize(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [sanitize(v) for v in o]
    if isinstance(o, (str, int, bool)) or o is None:
        return o
    return str(o)


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or not b:
        return None
    return a / b


# ---------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------


def result_key(r: dict) -> tuple[str, str, str]:
    return (r["op"], r["shape"], r["dtype"])


def summary_rows(results: list[dict], copy_gbps: float | None) -> list[dict]:
    """One row per case: our best passing kernel against each baseline."""
    cases: dict[tuple[str, str, str], list[dict]] = {}
    for r in results:
        cases.setdefault(result_key(r), []).append(r)
    out = []
    for (op, shape, dtype), rs in cases.items():
        ours = [r for r in rs if r["kernel"].startswith("ours")]
        ours_ok = [r for r in ours if r["status"] == "ok" and r.get("gbps")]
        best = max(ours_ok, key=lambda r: r["gbps"]) if ours_ok else None
        if best is None:
            timed = [r for r in ours if r.get("gbps")]
            best = max(timed, key=lambda r: r["gbps"]) if timed else (ours[0] if ours else None)
        row: dict[str, Any] = {"op": op, "shape": shape, "dtype": dtype,
                               "ours_kernel": best["kernel"] if best else None,
                               "ours_status": best["status"] if best else "not run",
                               "ours_gbps": best.get("gbps") if best else None}
        base_best = None
        for b in BASELINES:
            br = next((r for r in rs if r["kernel"] == b), None)
            g = br.get("gbps") if br else None
            row[f"{b}_gbps"] = g
            row[f"{b}_status"] = br["status"] if br else "not run"
            row[f"ours_over_{b}"] = ratio(row["ours_gbps"], g)
            if g and br["status"] == "ok" and (base_best is None or g > base_best):
                base_best = g
        row["best_baseline_gbps"] = base_best
        row["ours_over_best_baseline"] = ratio(row["ours_gbps"], base_best)
        row["ours_over_copy"] = ratio(row["ours_gbps"], copy_gbps)
        anchor = ANCHORS.get((op, dtype, shape))
        row["anchor"] = anchor
        out.append(row)
    return out


def status_mark(status: str) -> str:
    return "" if status == "ok" else "*"


def render_markdown(doc: dict) -> str:
    meta = doc["meta"]
    copy = doc.get("copy") or {}
    copy_gbps = copy.get("gbps")
    lines = [f"# softmax-mlir GPU softmax benchmark ({meta.get('device_name', '?')})", ""]
    lines += [f"- command: `{meta.get('command', '')}`",
              f"- date: {meta.get('date', '')}, host {meta.get('host', '')}",
              f"- device: {meta.get('device_name', '')} ({meta.get('device_info', '')})",
              f"- torch {meta.get('torch')}, triton {meta.get('triton')}, "
              f"python {meta.get('python')}",
              f"- timing: {meta.get('timing', '')}",
              f"- copy ceiling: {fmt(copy_gbps, 0)} GB/s (torch copy_ of "
              f"{fmt(copy.get('bytes', 0) / 2**30 if copy.get('bytes') else None, 2)} GiB, "
              f"read + write; DESIGN.md anchor {COPY_ANCHOR_GBPS:.0f})",
              f"- complete: {doc.get('complete')}", ""]
    if doc.get("notes"):
        lines += ["Notes:", ""] + [f"- {n}" for n in doc["notes"]] + [""]
    lines += ["## Details", "", render_details(doc["results"]), ""]
    probs = [r for r in doc["results"] if r.get("error") or r.get("skip")]
    if probs:
        lines += ["## Errors and skips", ""]
        lines += [f"- {r['op']} {r['shape']} {r['dtype']} {r['kernel']}: {r['status']}: "
                  f"{r.get('error') or r.get('skip')}" for r in probs] + [""]
    lines += ["## Summary (GB/s = bytes read + written / median time; ratio = ours / other)",
              "", render_summary(doc["summary"]), ""]
    lines += ["`*` after a figure: that kernel failed its check or did not run cleanly. "
              "err = largest per-row error (softmax max|y-ref|/max|ref|, others "
              "|y-ref|/max(1,|ref|)) against float64, random input / hostile input; "
              "bounds f32 1e-6, bf16 1e-2. masked = what the kernel wrote for all -inf rows.",
              ""]
    return "\n".join(lines)


def render_details(results: list[dict]) -> str:
    rows = []
    for r in results:
        t = r.get("time") or {}
        spread = None
        if t.get("median_us"):
            spread = 100.0 * (t["p90_us"] - t["p10_us"]) / t["median_us"]
        ck = r.get("check") or {}
        rows.append([r["op"], r["shape"], r["dtype"], r["kernel"], r["status"],
                     fmt(t.get("median_us"), 1), fmt(spread, 1, "%"),
                     fmt(r.get("gbps"), 0), fmt(r.get("pct_copy"), 1, "%"),
                     fmt_err(ck.get("random", {}).get("max_err")),
                     fmt_err(ck.get("hostile", {}).get("max_err")),
                     masked_str(ck.get("masked")), r.get("config_str", "")])
    return md_table(["op", "shape", "dtype", "kernel", "status", "median us", "p10-p90",
                     "GB/s", "%copy", "err rand", "err hostile", "masked", "config"],
                    rows, "lllllrrrrrrll")


def masked_str(m: dict | None) -> str:
    if not m:
        return "-"
    s = m.get("observed", "-")
    if m.get("pass") is False:
        s += f" (want {m.get('expected')})"
    return s


def render_summary(summary: list[dict]) -> str:
    rows = []
    for s in summary:
        def g(kind: str) -> str:
            v = s.get(f"{kind}_gbps")
            st = s.get(f"{kind}_status", "not run")
            return fmt(v, 0) + status_mark(st) if v else st

        ours = (fmt(s["ours_gbps"], 0) + status_mark(s["ours_status"])
                if s.get("ours_gbps") else s["ours_status"])
        anchor = s.get("anchor") or {}
        anchor_s = ", ".join(f"{k.replace('triton_', '')} {v:.0f}" for k, v in anchor.items())
        rows.append([s["op"], s["shape"], s["dtype"], ours,
                     fmt(100 * s["ours_over_copy"], 1, "%") if s.get("ours_over_copy") else "-",
                     g("triton_fused"), g("triton_online"), g("torch"),
                     fmt(s.get("ours_over_triton_fused"), 2), fmt(s.get("ours_over_triton_online"), 2),
                     fmt(s.get("ours_over_torch"), 2), fmt(s.get("ours_over_best_baseline"), 2),
                     anchor_s or "-", s.get("ours_kernel") or "-"])
    return md_table(["op", "shape", "dtype", "ours GB/s", "ours/copy", "triton fused",
                     "triton online", "torch", "ours/fused", "ours/online", "ours/torch",
                     "ours/best", "DESIGN anchor", "ours kernel"],
                    rows, "lllrrrrrrrrrll")


def write_outputs(doc: dict, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    jp, mp = out_dir / "gpu_softmax.json", out_dir / "gpu_softmax.md"
    tmp = jp.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(sanitize(doc), indent=1) + "\n")
    tmp.replace(jp)
    mp.write_text(render_markdown(doc) + "\n")
    return jp, mp


# ---------------------------------------------------------------------------
# Triton kernels
# ---------------------------------------------------------------------------

if triton is not None:  # pragma: no cover - needs Triton

    @triton.jit
    def _row_softmax_fused(x_ptr, y_ptr, n_cols, x_row_stride, y_row_stride,
                           OP: tl.constexpr, BLOCK: tl.constexpr):
        # One program per row; the whole row is held in registers.
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        inside = offs < n_cols
        v = tl.load(x_ptr + row * x_row_stride + offs, mask=inside,
                    other=-float("inf")).to(tl.float32)
        mx = tl.max(v, axis=0)
        d = v - mx
        p = tl.exp(d)
        total = tl.sum(p, axis=0)
        out_ty = y_ptr.dtype.element_ty
        if OP == 0:
            tl.store(y_ptr + row * y_row_stride + offs, (p * (1.0 / total)).to(out_ty),
                     mask=inside)
        elif OP == 1:
            tl.store(y_ptr + row * y_row_stride + offs, (d - tl.log(total)).to(out_ty),
                     mask=inside)
        else:
            tl.store(y_ptr + row, (mx + tl.log(total)).to(out_ty))

    @triton.jit
    def _row_softmax_online(x_ptr, y_ptr, n_cols, x_row_stride, y_row_stride,
                            OP: tl.constexpr, TILE: tl.constexpr, EVEN: tl.constexpr,
                            REVERSE: tl.constexpr):
        # One program per row. Pass 1 keeps a running (max, sum) per lane over
        # tiles of TILE elements (one exp per element: whichever of x and the
        # running max is smaller gets exponentiated against the larger); pass
        # 2 writes the outputs, optionally walking the tiles backwards so that
        # the most recently read ones are still in L2.
        row = tl.program_id(0).to(tl.int64)
        x_row = x_ptr + row * x_row_stride
        lanes = tl.arange(0, TILE)
        run_max = tl.full([TILE], -3.4028234663852886e38, tl.float32)
        run_sum = tl.zeros([TILE], dtype=tl.float32)
        n_tiles = tl.cdiv(n_cols, TILE)
        for t in range(0, n_tiles):
            cols = t * TILE + lanes
            if EVEN:
                v = tl.load(x_row + cols).to(tl.float32)
            else:
                v = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
            grows = v > run_max
            e = tl.exp(-tl.abs(v - run_max))
            run_sum = tl.where(grows, run_sum * e + 1.0, run_sum + e)
            run_max = tl.maximum(run_max, v)
        mx = tl.max(run_max, axis=0)
        total = tl.sum(run_sum * tl.exp(run_max - mx), axis=0)
        out_ty = y_ptr.dtype.element_ty
        if OP == 2:
            tl.store(y_ptr + row, (mx + tl.log(total)).to(out_ty))
        else:
            y_row = y_ptr + row * y_row_stride
            inv = 1.0 / total
            shift = mx + tl.log(total)
            for i in range(0, n_tiles):
                if REVERSE:
                    t2 = n_tiles - 1 - i
                else:
                    t2 = i
                cols = t2 * TILE + lanes
                if EVEN:
                    v = tl.load(x_row + cols).to(tl.float32)
                else:
                    v = tl.load(x_row + cols, mask=cols < n_cols,
                                other=-float("inf")).to(tl.float32)
                if OP == 0:
                    y = tl.exp(v - mx) * inv
                else:
                    y = v - shift
                if EVEN:
                    tl.store(y_row + cols, y.to(out_ty))
                else:
                    tl.store(y_row + cols, y.to(out_ty), mask=cols < n_cols)


def launch_fused(x, y, op: str, block: int, warps: int, grid_rows: int | None = None,
                 warmup_only: bool = False):
    """Runs (or, with warmup_only, only compiles) the fused Triton kernel."""
    rows, cols = x.shape
    y_stride = y.stride(0) if y.dim() == 2 else 1
    grid = (grid_rows if grid_rows is not None else rows,)
    args = (x, y, cols, x.stride(0), y_stride)
    kw = dict(OP=OP_CODE[op], BLOCK=block, num_warps=warps)
    if warmup_only:
        return _row_softmax_fused.warmup(*args, grid=grid, **kw)
    return _row_softmax_fused[grid](*args, **kw)


def launch_online(x, y, op: str, tile: int, warps: int, reverse: bool):
    rows, cols = x.shape
    y_stride = y.stride(0) if y.dim() == 2 else 1
    return _row_softmax_online[(rows,)](x, y, cols, x.stride(0), y_stride,
                                        OP=OP_CODE[op], TILE=tile, EVEN=(cols % tile == 0),
                                        REVERSE=reverse, num_warps=warps)


# ---------------------------------------------------------------------------
# Our libraries
# ---------------------------------------------------------------------------


class OursError(RuntimeError):
    pass


class OurLibrary:
    """The runtime (loaded RTLD_GLOBAL first) and the kernel library."""

    def __init__(self, lib_dir: Path):
        rt_path, k_path = lib_dir / RUNTIME_LIB, lib_dir / KERNEL_LIB
        self.rt = ctypes.CDLL(str(rt_path), mode=ctypes.RTLD_GLOBAL)
        self.rt.softmaxRuntimeSetStream.argtypes = [ctypes.c_void_p]
        self.rt.softmaxRuntimeSetStream.restype = None
        self.rt.softmaxRuntimeGetLastError.argtypes = []
        self.rt.softmaxRuntimeGetLastError.restype = ctypes.c_int
        self.rt.softmaxRuntimeGetLastErrorString.argtypes = []
        self.rt.softmaxRuntimeGetLastErrorString.restype = ctypes.c_char_p
        self._clear = getattr(self.rt, "softmaxRuntimeClearLastError", None)
        if self._clear is not None:
            self._clear.argtypes = []
            self._clear.restype = None
        self._get_err = self.rt.softmaxRuntimeGetLastError
        self.lib = ctypes.CDLL(str(k_path))
        self.paths = (str(rt_path), str(k_path))

    def set_stream(self, handle: int | None) -> None:
        # A NULL handle means "no override" to the runtime; torch's legacy
        # default stream (handle 0) must be passed as SOFTMAX_RUNTIME_STREAM_LEGACY.
        self.rt.softmaxRuntimeSetStream(ctypes.c_void_p(handle if handle else 1))

    def clear_stream(self) -> None:
        self.rt.softmaxRuntimeSetStream(None)

    def check(self, what: str) -> None:
        code = self._get_err()
        if code:
            msg = self.rt.softmaxRuntimeGetLastErrorString() or b""
            if self._clear is not None:
                self._clear()
            raise OursError(f"{what}: runtime error {code}: {msg.decode('utf-8', 'replace')}")

    def function(self, symbol: str):
        try:
            f = getattr(self.lib, symbol)
        except AttributeError:
            return None
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        f.restype = None
        return f


# ---------------------------------------------------------------------------
# The torch part
# ---------------------------------------------------------------------------


class Bench:
    """Everything that needs torch. Created only when benchmarking."""

    def __init__(self, args: argparse.Namespace, plan: Plan, ours: list[OurKernel],
                 ours_notes: list[str], ours_syms: set[str] | None):
        import torch  # noqa: PLC0415
        self.torch = torch
        self.args = args
        self.plan = plan
        self.ours = ours
        self.device = args.device
        self.gpu = self.device == "cuda"
        self.dtypes = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
                       "f64": torch.float64}
        self.results: list[dict] = []
        self.notes: list[str] = list(ours_notes)
        self.ours_syms = ours_syms
        self.lib: OurLibrary | None = None
        self.lib_error = ""
        self.copy: dict | None = None
        self.t0 = time.time()
        self.online_best: dict[tuple[str, str], tuple[int, int, bool]] = {}
        self.fused_failed: dict[tuple[str, int], str] = {}
        self.precompile: dict[str, dict] = {}
        self.sleep_cycles_per_ms: float | None = None
        self.case_errors = 0
        self.use_triton = (triton is not None and self.gpu)
        self.out_dir = Path(args.out or os.environ.get("OUT") or ".")
        self.doc_meta = self.collect_meta()

    # -- setup ---------------------------------------------------------------

    def collect_meta(self) -> dict:
        torch = self.torch
        meta = {
            "command": shlex.join([sys.executable] + sys.argv),
            "cwd": os.getcwd(),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": socket.gethostname(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "triton": getattr(triton, "__version__", None) if triton is not None
            else f"unavailable ({TRITON_IMPORT_ERROR})",
            "device": self.device,
            "lib_dir": str(Path(self.args.lib_dir).resolve()),
            "seed": self.args.seed,
            "iters": self.args.iters,
            "warmup": self.args.warmup,
            "rotate": self.args.rotate,
            "online_configs": self.args.online_configs,
        }
        if self.gpu:
            p = torch.cuda.get_device_properties(0)
            l2 = getattr(p, "L2_cache_size", 0)
            meta.update({
                "device_name": p.name,
                "device_info": f"sm_{p.major}{p.minor}, {p.multi_processor_count} SMs, "
                               f"{p.total_memory / 2**30:.0f} GiB, L2 {l2 / 2**20:.0f} MiB",
                "l2_bytes": l2,
                "cuda_runtime": torch.version.cuda,
            })
            try:
                smi = subprocess.run(
                    ["nvidia-smi", "--query-gpu=driver_version,clocks.sm,clocks.mem,"
                     "power.limit,temperature.gpu", "--format=csv,noheader"],
                    capture_output=True, text=True, timeout=20)
                meta["nvidia_smi"] = smi.stdout.strip()
            except (OSError, subprocess.TimeoutExpired):
                pass
            meta["timing"] = ("CUDA events around each call, median of --iters after --warmup; "
                              "a torch.cuda._sleep before each chunk of calls lets the host "
                              "run ahead, so launch overhead is not in the figures; no L2 "
                              "flush; inputs rotate over several buffer sets when a case's "
                              "bytes are under 4x L2 (--rotate)")
        else:
            meta.update({"device_name": f"CPU ({platform.processor() or platform.machine()})",
                         "device_info": f"{os.cpu_count()} cpus, torch threads "
                                        f"{torch.get_num_threads()}",
                         "timing": "host perf_counter around each synchronous call, median"})
        return meta

    def doc(self, complete: bool, exit_code: int | None = None) -> dict:
        copy_gbps = self.copy.get("gbps") if self.copy else None
        return {"meta": self.doc_meta, "copy": self.copy, "results": self.results,
                "summary": summary_rows(self.results, copy_gbps),
                "ours_kernels": [k.to_json() for k in self.ours],
                "notes": self.notes, "complete": complete, "exit_code": exit_code,
                "elapsed_s": round(time.time() - self.t0, 1)}

    def save(self, complete: bool, exit_code: int | None = None) -> None:
        try:
            write_outputs(self.doc(complete, exit_code), self.out_dir)
        except OSError as e:
            print(f"warning: could not write results to {self.out_dir}: {e}", file=sys.stderr)

    def sync(self) -> None:
        if self.gpu:
            self.torch.cuda.synchronize()

    def load_ours(self) -> None:
        if "ours" not in self.plan.kernels:
            return
        try:
            self.lib = OurLibrary(Path(self.args.lib_dir))
        except OSError as e:
            self.lib_error = f"could not load our libraries from {self.args.lib_dir}: {e}"
            self.notes.append(self.lib_error)
            print("error: " + self.lib_error, file=sys.stderr)
            return
        except AttributeError as e:
            self.lib_error = f"runtime library lacks an entry point: {e}"
            self.notes.append(self.lib_error)
            print("error: " + self.lib_error, file=sys.stderr)
            return
        if self.gpu:
            self.lib.set_stream(self.torch.cuda.current_stream().cuda_stream)

    # -- timing --------------------------------------------------------------

    def calibrate_sleep(self) -> None:
        torch = self.torch
        if not self.gpu or not hasattr(torch.cuda, "_sleep"):
            return
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(100_000)
        s.record()
        torch.cuda._sleep(2_000_000)
        e.record()
        e.synchronize()
        ms = s.elapsed_time(e)
        if ms > 0:
            self.sleep_cycles_per_ms = 2_000_000 / ms

    def time_calls(self, call: Callable[[int], None], nsets: int, iters: int,
                   warmup: int) -> dict:
        """Median etc. of per-call times (ms lists -> us summary)."""
        torch = self.torch
        for i in range(warmup):
            call(i % nsets)
        self.sync()
        if not self.gpu:
            ms = []
            for i in range(iters):
                t = time.perf_counter()
                call(i % nsets)
                ms.append((time.perf_counter() - t) * 1e3)
            return summarize_times(ms)
        chunk = 25
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        lead_ms = 0.5 + 0.06 * chunk
        for c in range(0, iters, chunk):
            if self.sleep_cycles_per_ms:
                torch.cuda._sleep(int(self.sleep_cycles_per_ms * lead_ms))
            for i in range(c, min(c + chunk, iters)):
                starts[i].record()
                call(i % nsets)
                ends[i].record()
        self.sync()
        ms = [s.elapsed_time(e) for s, e in zip(starts, ends)]
        res = summarize_times(ms)
        # Idle time between one call's end and the next one's start: large
        # gaps mean the host did not keep up (launch-bound figures).
        gaps = [ends[i].elapsed_time(starts[i + 1]) * 1000.0 for i in range(iters - 1)
                if (i + 1) % chunk != 0]
        if gaps:
            res["gap_median_us"] = percentile(gaps, 50)
        return res

    def measure_copy(self) -> None:
        torch = self.torch
        nbytes = int(self.args.copy_gib * 2**30) if self.gpu else 64 * 2**20
        src = torch.empty(nbytes, dtype=torch.uint8, device=self.device)
        src.random_(0, 256)
        dst = torch.empty_like(src)
        t = self.time_calls(lambda i: dst.copy_(src), 1, max(self.args.iters, 20),
                            self.args.warmup)
        gbps = 2 * nbytes / (t["median_us"] * 1e-6) / 1e9
        self.copy = {"bytes": nbytes, "time": t, "gbps": gbps}
        print(f"copy: {nbytes / 2**30:.2f} GiB in {t['median_us']:.1f} us median -> "
              f"{gbps:.0f} GB/s (read + write)", flush=True)
        del src, dst
        self.release()

    def release(self) -> None:
        import gc
        gc.collect()
        if self.gpu:
            self.torch.cuda.empty_cache()

    # -- inputs and references -----------------------------------------------

    def generator(self, seed: int):
        g = self.torch.Generator(device=self.device)
        g.manual_seed(seed)
        return g

    def make_random(self, rows: int, cols: int, dtype: str, seed: int):
        torch = self.torch
        g = self.generator(seed)
        x = torch.randn(rows, cols, generator=g, device=self.device, dtype=torch.float32)
        x.mul_(3.0)
        return x.to(self.dtypes[dtype])

    def make_hostile(self, x, seed: int) -> tuple[Any, dict[int, str]]:
        torch = self.torch
        rows, cols = x.shape
        g = self.generator(seed)
        dev = self.device
        xh = x.clone()
        kinds: dict[int, str] = {}
        n = min(rows, len(HOSTILE_KINDS))
        pos = sorted({round(i * (rows - 1) / max(n - 1, 1)) for i in range(n)})
        inf = float("inf")
        for r, kind in zip(pos, HOSTILE_KINDS):
            base = torch.randn(cols, generator=g, device=dev) * 3.0
            if kind == "all_neg_inf":
                row = torch.full((cols,), -inf, device=dev)
            elif kind == "pm1e4_sprinkled":
                row = base
                k = max(1, cols // 100)
                idx = torch.randperm(cols, generator=g, device=dev)
                row[idx[:k]] = 1e4
                row[idx[k:2 * k]] = -1e4
            elif kind == "pm1e4_only":
                row = (torch.randint(0, 2, (cols,), generator=g, device=dev).float() * 2 - 1) * 1e4
            elif kind == "single_finite":
                row = torch.full((cols,), -inf, device=dev)
                j = int(torch.randint(0, cols, (1,), generator=g, device=dev).item())
                row[j] = base[j]
            elif kind == "single_finite_last":
                row = torch.full((cols,), -inf, device=dev)
                row[-1] = 2.5
            elif kind == "shift_pos_1e4":
                row = base + 1e4
            elif kind == "shift_neg_1e4":
                row = base - 1e4
            elif kind == "half_neg_inf":
                keep = torch.rand(cols, generator=g, device=dev) < 0.5
                keep[0] = True
                row = torch.where(keep, base, torch.full_like(base, -inf))
            elif kind == "constant":
                row = torch.full((cols,), 7.0, device=dev)
            elif kind == "tiny_range":
                row = base * (1e-3 / 3.0)
            else:  # pragma: no cover
                raise AssertionError(kind)
            xh[r] = row.to(x.dtype)
            kinds[r] = kind
        return xh, kinds

    def reference(self, op: str, x):
        torch = self.torch
        x64 = x.double()
        if op == "softmax":
            return torch.softmax(x64, dim=-1)
        if op == "log_softmax":
            return torch.log_softmax(x64, dim=-1)
        return torch.logsumexp(x64, dim=-1)

    def masked_rows(self, x):
        return (x == float("-inf")).all(dim=-1)

    # -- checks --------------------------------------------------------------

    def row_errors(self, op: str, y, ref):
        """Per-row error in the project's metric; +inf for rows with a
        non-finite value where the reference is finite, or a mismatch where
        the reference is not finite (-inf in log_softmax)."""
        torch = self.torch
        y = y.double()
        if op == "logsumexp":
            y, ref = y[:, None], ref[:, None]
        ref_fin = torch.isfinite(ref)
        y_fin = torch.isfinite(y)
        bad = (ref_fin & ~y_fin) | (~ref_fin & (y != ref))
        bad_rows = bad.any(dim=-1)
        zero = torch.zeros((), dtype=torch.float64, device=y.device)
        one = torch.ones((), dtype=torch.float64, device=y.device)
        diff = torch.where(ref_fin & y_fin, (y - ref).abs(), zero)
        if op == "softmax":
            scale = torch.where(ref_fin, ref.abs(), zero).amax(dim=-1)
            err = diff.amax(dim=-1) / torch.where(scale > 0, scale, one)
        else:
            denom = torch.where(ref_fin, ref.abs(), one).clamp_min(1.0)
            err = (diff / denom).amax(dim=-1)
        del diff
        return torch.where(bad_rows, torch.full_like(err, float("inf")), err)

    def check_output(self, op: str, dtype: str, y, ref, masked) -> dict:
        torch = self.torch
        err = self.row_errors(op, y, ref)
        keep = ~masked
        n = int(keep.sum().item())
        if n == 0:
            return {"max_err": 0.0, "rows": 0, "pass": True}
        e = torch.where(keep, err, torch.zeros_like(err))
        worst = int(e.argmax().item())
        max_err = float(e[worst].item())
        bound = BOUNDS[dtype]
        nbad = int(((err > bound) & keep).sum().item())
        return {"max_err": max_err, "worst_row": worst, "rows": n, "rows_over_bound": nbad,
                "bound": bound, "pass": bool(max_err <= bound)}

    def observe_masked(self, op: str, y, masked, expect: str | None) -> dict:
        """What a kernel wrote in all -inf rows; with ``expect`` ("zero" or
        "nan") also whether it is the documented fill."""
        torch = self.torch
        nm = int(masked.sum().item())
        if nm == 0:
            return {"rows": 0, "observed": "-", "pass": True}
        vals = y[masked].double()
        if vals.dim() == 1:
            vals = vals[:, None]
        obs = []
        if bool(torch.isnan(vals).all().item()):
            obs = "nan"
        elif bool((vals == 0).all().item()):
            obs = "0"
        elif bool((vals == float("-inf")).all().item()):
            obs = "-inf"
        else:
            obs = "mixed"
        res: dict[str, Any] = {"rows": nm, "observed": obs}
        if expect is not None:
            want = "nan" if expect == "nan" else ("0" if op == "softmax" else "-inf")
            res["expected"] = want
            res["pass"] = obs == want
        return res

    # -- kernel runners ------------------------------------------------------

    def out_shape(self, op: str, rows: int, cols: int) -> tuple[int, ...]:
        return (rows,) if op == "logsumexp" else (rows, cols)

    def runner(self, kind: str, op: str, dtype: str, rows: int, cols: int, extra: Any):
        """(setup(xs) -> (call(i), outputs list or None), config dict)."""
        torch = self.torch
        tdt = self.dtypes[dtype]
        oshape = self.out_shape(op, rows, cols)

        if kind == "torch":
            fn = {"softmax": lambda x: torch.softmax(x, dim=-1),
                  "log_softmax": lambda x: torch.log_softmax(x, dim=-1),
                  "logsumexp": lambda x: torch.logsumexp(x, dim=-1)}[op]

            def setup(xs):
                last: list[Any] = [None] * len(xs)

                def call(i):
                    last[i] = fn(xs[i])
                return call, last
            return setup, {}

        if kind == "triton_fused":
            block, warps = extra

            def setup(xs):
                outs = [torch.empty(oshape, dtype=tdt, device=self.device) for _ in xs]
                return (lambda i: launch_fused(xs[i], outs[i], op, block, warps)), outs
            return setup, {"BLOCK": block, "num_warps": warps}

        if kind == "triton_online":
            tile, warps, rev = extra

            def setup(xs):
                outs = [torch.empty(oshape, dtype=tdt, device=self.device) for _ in xs]
                return (lambda i: launch_online(xs[i], outs[i], op, tile, warps, rev)), outs
            return setup, {"TILE": tile, "num_warps": warps, "reverse_pass2": rev}

        if kind == "ours":
            k: OurKernel = extra
            fn = self.lib.function(k.symbol)
            if fn is None:
                raise OursError(f"symbol {k.symbol} not found")
            odt = self.dtypes[k.out_dtype] if k.out_dtype else tdt
            lib = self.lib

            def setup(xs):
                outs = [torch.empty(oshape, dtype=odt, device=self.device) for _ in xs]
                keep = []
                argv = []
                for x, y in zip(xs, outs):
                    assert x.is_contiguous() and y.is_contiguous()
                    dx = make_memref(x.data_ptr(), x.shape, x.stride())
                    dy = make_memref(y.data_ptr(), y.shape, y.stride())
                    keep.append((dx, dy))
                    argv.append((ctypes.addressof(dx), ctypes.addressof(dy)))
                what = k.name

                def call(i):
                    a = argv[i]
                    fn(a[0], a[1])
                    lib.check(what)
                call.keep = keep  # descriptors live as long as the closure
                return call, outs
            cfg = dict(k.info)
            cfg["masked"] = k.masked
            return setup, cfg

        raise AssertionError(kind)

    # -- one kernel ----------------------------------------------------------

    def poison(self, outs) -> None:
        for o in outs or ():
            if o is not None:  # torch's outputs are new tensors (None before a call)
                o.fill_(float("nan"))

    def run_kernel(self, kind: str, label: str, op: str, shape: tuple[int, int], dtype: str,
                   extra: Any, x, xs, ref, masked, xh, ref_h, masked_h, nbytes: int,
                   expect_masked: str | None, time_it: bool = True) -> dict:
        rows, cols = shape
        res: dict[str, Any] = {"op": op, "shape": f"{rows}x{cols}", "dtype": dtype,
                               "kernel": label, "status": "ok", "bytes": nbytes, "check": {}}
        try:
            setup, cfg = self.runner(kind, op, dtype, rows, cols, extra)
            res["config"] = cfg
            res["config_str"] = " ".join(f"{k}={v}" for k, v in cfg.items()
                                         if k in ("BLOCK", "TILE", "num_warps", "reverse_pass2",
                                                  "strategy"))
            # Correctness on the random input (poisoned outputs first).
            call, outs = setup(xs)
            self.poison(outs)
            call(0)
            self.sync()
            y0 = outs[0] if outs is not None and outs[0] is not None else None
            ck = self.check_output(op, dtype, y0, ref, masked)
            res["check"]["random"] = ck
            first = y0.clone() if (outs is not None and kind != "torch") else None
            # Timing.
            if time_it:
                t = self.time_calls(call, len(xs), self.args.iters, self.args.warmup)
                res["time"] = t
                res["gbps"] = nbytes / (t["median_us"] * 1e-6) / 1e9
                if self.copy:
                    res["pct_copy"] = 100.0 * res["gbps"] / self.copy["gbps"]
                if first is not None:
                    used = min(len(outs), self.args.iters + self.args.warmup)
                    same = all(bool(self.torch.equal(o, first)) for o in outs[:used])
                    res["check"]["repeatable"] = same
            del call, outs, y0, first
            # Correctness on the hostile input.
            call, outs = setup([xh])
            self.poison(outs)
            call(0)
            self.sync()
            yh = outs[0]
            res["check"]["hostile"] = self.check_output(op, dtype, yh, ref_h, masked_h)
            res["check"]["masked"] = self.observe_masked(op, yh, masked_h, expect_masked)
            del call, outs, yh
            ok = res["check"]["random"]["pass"] and res["check"]["hostile"]["pass"]
            if expect_masked is not None:
                ok = ok and res["check"]["masked"]["pass"]
            if res["check"].get("repeatable") is False:
                ok = False
            res["status"] = "ok" if ok else "fail"
        except Exception as e:  # noqa: BLE001 - record and go on
            res["status"] = "error"
            res["error"] = f"{type(e).__name__}: {e}"[:2000]
            if self.lib is not None and kind == "ours":
                try:
                    self.lib.check("after error")
                except OursError as e2:
                    res["error"] += f"; {e2}"
        return res

    # -- precompiling huge fused kernels in child processes -------------------

    def start_precompiles(self) -> None:
        if not self.use_triton or "triton_fused" not in self.plan.kernels:
            return
        tmp = Path(tempfile.mkdtemp(prefix="softmax_bench_"))
        for op, (rows, cols), dtype in self.plan.cases():
            block = next_pow2(cols)
            if block > self.args.fused_max_block or block < self.args.fused_subprocess_min_block:
                continue
            spec = {"op": op, "dtype": dtype, "cols": cols, "block": block,
                    "warps": fused_warps(block)}
            key = json.dumps(spec, sort_keys=True)
            if key in self.precompile:
                continue
            log = tmp / f"pre_{len(self.precompile)}.log"
            fh = open(log, "w")
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--_precompile",
                                  key], stdout=fh, stderr=subprocess.STDOUT)
            fh.close()
            self.precompile[key] = {"proc": p, "start": time.time(), "log": log}
            print(f"precompiling fused {dtype} {op} BLOCK={block} in a child process "
                  f"(pid {p.pid})", flush=True)

    def wait_precompile(self, op: str, dtype: str, cols: int, block: int, warps: int) -> str | None:
        """None when the kernel is compiled (or no child was started), else a
        reason to skip it."""
        key = json.dumps({"op": op, "dtype": dtype, "cols": cols, "block": block,
                          "warps": warps}, sort_keys=True)
        ent = self.precompile.get(key)
        if ent is None:
            return None
        if "result" in ent:
            return ent["result"]
        p: subprocess.Popen = ent["proc"]
        left = self.args.fused_compile_timeout - (time.time() - ent["start"])
        try:
            rc = p.wait(timeout=max(left, 0.1))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            ent["result"] = (f"compile timeout (> {self.args.fused_compile_timeout:.0f} s in a "
                             "child process)")
            return ent["result"]
        if rc != 0:
            tail = ent["log"].read_text(errors="replace").strip().splitlines()[-3:]
            ent["result"] = f"compile failed in a child process (rc {rc}): " + " / ".join(tail)
        else:
            ent["result"] = None
        return ent["result"]

    def stop_precompiles(self) -> None:
        for ent in self.precompile.values():
            p = ent["proc"]
            if p.poll() is None:
                p.kill()
                p.wait()

    # -- one case --------------------------------------------------------------

    def run_case(self, op: str, shape: tuple[int, int], dtype: str, case_idx: int) -> None:
        torch = self.torch
        rows, cols = shape
        sshape = f"{rows}x{cols}"
        nbytes = bytes_moved(op, rows, cols, dtype)
        seed = self.args.seed + 1000 * case_idx
        x = self.make_random(rows, cols, dtype, seed)
        in_out = x.numel() * x.element_size() * 2
        nsets = 1
        if self.args.rotate == "auto":
            l2 = self.doc_meta.get("l2_bytes") or 0
            if self.gpu and l2 and in_out < 4 * l2:
                nsets = min(8, math.ceil(4 * l2 / in_out))
        else:
            nsets = max(1, int(self.args.rotate))
        xs = [x] + [x.clone() for _ in range(nsets - 1)]
        ref = self.reference(op, x)
        masked = self.masked_rows(x)
        xh, kinds = self.make_hostile(x, seed + 1)
        ref_h = self.reference(op, xh)
        masked_h = self.masked_rows(xh)
        common = dict(op=op, shape=shape, dtype=dtype, x=x, xs=xs, ref=ref, masked=masked,
                      xh=xh, ref_h=ref_h, masked_h=masked_h)
        print(f"\n== {op} {sshape} {dtype}: {nbytes / 1e6:.1f} MB moved, {nsets} buffer "
              f"set(s), hostile rows {len(kinds)}", flush=True)
        case_results: list[dict] = []

        def add(r: dict) -> None:
            r["buffer_sets"] = nsets
            case_results.append(r)
            self.results.append(r)
            t = r.get("time") or {}
            ck = r.get("check") or {}
            print(f"  {r['kernel']:<16} {r['status']:<10} "
                  f"{fmt(t.get('median_us'), 1):>9} us {fmt(r.get('gbps'), 0):>6} GB/s  "
                  f"err {fmt_err(ck.get('random', {}).get('max_err'))}"
                  f"/{fmt_err(ck.get('hostile', {}).get('max_err'))}"
                  f"  masked {(ck.get('masked') or {}).get('observed', '-')}"
                  f"  {r.get('config_str', '')}"
                  + (f"  [{r['error'] if 'error' in r else r.get('skip', '')}]"
                     if r["status"] not in ("ok", "fail") else ""), flush=True)

        def skipped(label: str, status: str, why: str) -> dict:
            return {"op": op, "shape": sshape, "dtype": dtype, "kernel": label,
                    "status": status, "skip": why, "bytes": nbytes, "check": {}}

        # Ours.
        if "ours" in self.plan.kernels:
            ks = ours_for(self.ours, op, shape, dtype)
            if not ks:
                add(skipped("ours", "not built", "no such kernel in the library"))
            for k in ks:
                if self.lib is None:
                    add(skipped(k.label, "error", self.lib_error or "library not loaded"))
                    continue
                if k.info.get("missing_symbol"):
                    add(skipped(k.label, "not built", f"{k.symbol} listed in kernels.json "
                                "but not exported"))
                    continue
                r = self.run_kernel("ours", k.label, extra=k, nbytes=bytes_moved(
                    op, rows, cols, dtype, k.out_dtype or None),
                    expect_masked=k.masked, **common)
                r["symbol"] = k.symbol
                add(r)

        # Triton fused.
        if "triton_fused" in self.plan.kernels:
            block = next_pow2(cols)
            warps = fused_warps(block)
            if not self.use_triton:
                add(skipped("triton_fused", "skipped", "Triton unavailable" if self.gpu
                            else "cpu mode"))
            elif block > self.args.fused_max_block:
                add(skipped("triton_fused", "skipped", f"BLOCK {block} > --fused-max-block"))
            elif (dtype, block) in self.fused_failed:
                add(skipped("triton_fused", "skipped", self.fused_failed[(dtype, block)]))
            else:
                why = self.wait_precompile(op, dtype, cols, block, warps)
                if why:
                    self.fused_failed[(dtype, block)] = why
                    add(skipped("triton_fused", "compile failed", why))
                else:
                    r = self.run_kernel("triton_fused", "triton_fused", extra=(block, warps),
                                        nbytes=nbytes, expect_masked=None, **common)
                    if r["status"] == "error":
                        self.fused_failed[(dtype, block)] = "failed for softmax: " + r["error"][:200]
                    add(r)

        # Triton online: every config for softmax (best kept), softmax's best
        # for the other ops.
        if "triton_online" in self.plan.kernels:
            if not self.use_triton:
                add(skipped("triton_online", "skipped", "Triton unavailable" if self.gpu
                            else "cpu mode"))
            else:
                cfgs = online_configs_for(cols, parse_online_configs(self.args.online_configs))
                best_prev = self.online_best.get((sshape, dtype))
                if op != "softmax" and best_prev is not None:
                    cfgs = [best_prev]
                tried = []
                for c in cfgs:
                    r = self.run_kernel("triton_online", "triton_online", extra=c,
                                        nbytes=nbytes, expect_masked=None, **common)
                    tried.append(r)
                ok = [r for r in tried if r["status"] == "ok" and r.get("gbps")]
                pool = ok or [r for r in tried if r.get("gbps")] or tried
                best = max(pool, key=lambda r: r.get("gbps") or 0.0)
                if len(tried) > 1:
                    best["tuning"] = [{"config": r.get("config"), "status": r["status"],
                                       "gbps": r.get("gbps")} for r in tried]
                if op == "softmax" and best["status"] == "ok":
                    cfg = best["config"]
                    self.online_best[(sshape, dtype)] = (cfg["TILE"], cfg["num_warps"],
                                                         cfg["reverse_pass2"])
                add(best)

        # torch.
        if "torch" in self.plan.kernels:
            add(self.run_kernel("torch", "torch", extra=None, nbytes=nbytes,
                                expect_masked=None, **common))

        del x, xs, ref, masked, xh, ref_h, masked_h, common
        self.release()

    # -- all -----------------------------------------------------------------

    def run(self) -> int:
        torch = self.torch
        if self.gpu:
            if not torch.cuda.is_available():
                print("error: CUDA is not available to torch", file=sys.stderr)
                return 2
            torch.cuda.init()
        self.start_precompiles()
        stream = torch.cuda.Stream() if self.gpu else None
        ctx = torch.cuda.stream(stream) if self.gpu else _NullCtx()
        exit_code = 0
        try:
            with ctx:
                self.load_ours()
                self.calibrate_sleep()
                if self.ours and self.plan.kernels and "ours" in self.plan.kernels:
                    print(f"our kernels: {len(self.ours)} "
                          f"({', '.join(k.name for k in self.ours[:12])}"
                          f"{', ...' if len(self.ours) > 12 else ''})", flush=True)
                self.measure_copy()
                self.save(False)
                if "ours" in self.plan.kernels and self.lib is not None and not self.ours:
                    msg = f"no kernels of ours found in {self.args.lib_dir}: all 'not built'"
                    self.notes.append(msg)
                    print("warning: " + msg, file=sys.stderr)
                for i, (op, shape, dtype) in enumerate(self.plan.cases()):
                    try:
                        self.run_case(op, shape, dtype, i)
                    except Exception as e:  # noqa: BLE001 - e.g. a dead CUDA context
                        msg = (f"case {op} {shape[0]}x{shape[1]} {dtype} aborted: "
                               f"{type(e).__name__}: {e}")[:1000]
                        self.notes.append(msg)
                        print("error: " + msg, file=sys.stderr, flush=True)
                        self.case_errors += 1
                    self.save(False)
                    print(f"  [{time.time() - self.t0:.0f} s]", flush=True)
        finally:
            self.stop_precompiles()
            if self.lib is not None and self.gpu:
                self.lib.clear_stream()
        ours_res = [r for r in self.results if r["kernel"].startswith("ours")]
        bad = [r for r in ours_res if r["status"] in ("fail", "error")]
        ran = [r for r in ours_res if r["status"] in ("ok", "fail", "error")]
        if bad or (self.case_errors and "ours" in self.plan.kernels):
            exit_code = 1
        if self.lib_error and "ours" in self.plan.kernels:
            exit_code = 3
        print()
        print(render_details(self.results))
        print()
        doc = self.doc(True, exit_code)
        print(render_summary(doc["summary"]))
        self.save(True, exit_code)
        print(f"\ncopy ceiling {fmt(self.copy['gbps'] if self.copy else None, 0)} GB/s; "
              f"results in {self.out_dir / 'gpu_softmax.json'} and gpu_softmax.md; "
              f"{time.time() - self.t0:.0f} s")
        nb = sum(1 for r in ours_res if r["status"] == "not built")
        print(f"ours: {len(ran) - len(bad)} passed, {len(bad)} failed"
              + (f", {nb} skipped" if nb else "") + f" (exit {exit_code})")
        return exit_code


class _NullCtx:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def precompile_child(spec_json: str) -> int:
    """Child process: compile one fused Triton kernel into Triton's on-disk
    cache (the parent then loads it from there), without launching it."""
    import torch  # noqa: PLC0415
    spec = json.loads(spec_json)
    if triton is None:
        print(f"Triton unavailable: {TRITON_IMPORT_ERROR}")
        return 1
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[spec["dtype"]]
    cols = spec["cols"]
    x = torch.empty((1, cols), dtype=dt, device="cuda")
    y = torch.empty((1,) if spec["op"] == "logsumexp" else (1, cols), dtype=dt, device="cuda")
    t = time.time()
    if hasattr(_row_softmax_fused, "warmup"):
        launch_fused(x, y, spec["op"], spec["block"], spec["warps"], grid_rows=1,
                     warmup_only=True)
    else:
        launch_fused(x, y, spec["op"], spec["block"], spec["warps"], grid_rows=1)
        torch.cuda.synchronize()
    print(f"compiled {spec} in {time.time() - t:.1f} s")
    return 0


# ---------------------------------------------------------------------------
# Dry run and self-test (no torch)
# ---------------------------------------------------------------------------


def dry_run(args: argparse.Namespace, plan: Plan, ours: list[OurKernel], notes: list[str]) -> int:
    print(f"lib dir: {Path(args.lib_dir).resolve()}")
    for n in notes:
        print(f"  {n}")
    print(f"triton: {getattr(triton, '__version__', None) or 'unavailable: ' + TRITON_IMPORT_ERROR}")
    print(f"kernels: {', '.join(plan.kernels)}; ops: {', '.join(plan.ops)}; iters {args.iters}, "
          f"warmup {args.warmup}")
    rows = []
    for op, (r, c), dt in plan.cases():
        nbytes = bytes_moved(op, r, c, dt)
        ks = ours_for(ours, op, (r, c), dt)
        block = next_pow2(c)
        fused = ("skip (> --fused-max-block)" if block > args.fused_max_block
                 else f"BLOCK={block} w={fused_warps(block)}"
                 + (" (child compile)" if block >= args.fused_subprocess_min_block else ""))
        online = ", ".join(f"{t}:{w}{'' if rv else ':f'}" for t, w, rv in
                           online_configs_for(c, parse_online_configs(args.online_configs)))
        rows.append([op, f"{r}x{c}", dt, f"{nbytes / 1e6:.1f}",
                     f"{nbytes / (COPY_ANCHOR_GBPS * 1e9) * 1e6:.1f}",
                     ", ".join(k.name for k in ks) or "not built", fused, online])
    print(md_table(["op", "shape", "dtype", "MB moved", "us at copy bw", "ours", "triton fused",
                    "triton online configs"], rows, "lllrrlll"))
    return 0


def self_test() -> int:
    passed = failed = 0

    def expect(cond: bool, what: str) -> None:
        nonlocal passed, failed
        if cond:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: {what}")

    # Descriptors.
    expect(ctypes.sizeof(MemRef2D) == 56, "sizeof MemRef2D == 56")
    expect(ctypes.sizeof(MemRef1D) == 40, "sizeof MemRef1D == 40")
    expect(MemRef2D.sizes.offset == 24 and MemRef2D.strides.offset == 40, "MemRef2D offsets")
    d = make_memref(0x1000, (8192, 8192), (8192, 1))
    raw = bytes(d)
    expect(struct.unpack("<QQqqqqq", raw) == (0x1000, 0x1000, 0, 8192, 8192, 8192, 1),
           "MemRef2D bytes")
    d1 = make_memref(0x2000, (512,), (1,))
    expect(struct.unpack("<QQqqq", bytes(d1)) == (0x2000, 0x2000, 0, 512, 1), "MemRef1D bytes")
    try:
        make_memref(0, (1, 2, 3), (6, 3, 1))
        expect(False, "rank 3 rejected")
    except ValueError:
        expect(True, "rank 3 rejected")

    # Symbol names.
    k = parse_symbol("_mlir_ciface_softmax_f32_8192x8192")
    expect(k is not None and (k.op, k.dtype, k.rows, k.cols, k.variant, k.label) ==
           ("softmax", "f32", 8192, 8192, "", "ours"), "parse softmax symbol")
    k = parse_symbol("_mlir_ciface_log_softmax_bf16_512x262144")
    expect(k is not None and (k.op, k.dtype, k.rows, k.cols) == ("log_softmax", "bf16", 512, 262144),
           "parse log_softmax symbol")
    k = parse_symbol("_mlir_ciface_logsumexp_f32_16384x1024_split_k")
    expect(k is not None and k.op == "logsumexp" and k.variant == "split_k"
           and k.label == "ours:split_k" and k.name == "logsumexp_f32_16384x1024_split_k",
           "parse variant symbol")
    expect(parse_symbol("softmax_f32_8192x8192") is None, "plain name is not a ciface symbol")
    expect(parse_symbol("_mlir_ciface_softmax_f32_8192") is None, "shape needed")
    expect(parse_symbol("_mlir_softmax_f32_8192x8192") is None, "non-ciface rejected")
    expect(parse_nm_output("0000000000001139 T _mlir_ciface_softmax_f32_1x2\n"
                           "                 U mgpuLaunchKernel\n"
                           "0000000000001200 T foo@@VERS_1\n") ==
           ["_mlir_ciface_softmax_f32_1x2", "foo"], "parse nm output")

    # ELF reader on a system library.
    for cand in ("/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                 "/lib64/libc.so.6"):
        if os.path.exists(cand):
            syms = read_elf_dynsyms(cand)
            expect("printf" in syms and "malloc" in syms, f"ELF dynsym reader on {cand}")
            break

    # kernels.json.
    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / KERNELS_JSON
        p.write_text(json.dumps({"kernels": [
            {"name": "softmax_f32_8192x8192", "strategy": "row_per_cta", "masked": "zero"},
            {"name": "_mlir_ciface_logsumexp_bf16_512x262144", "op": "logsumexp",
             "dtype": "bf16", "rows": 512, "cols": 262144, "block": 1024},
            {"name": "custom_entry", "op": "softmax", "dtype": "f32", "shape": [4, 8]}]}))
        ks = load_kernels_json(p)
        expect(len(ks) == 3 and ks[0].symbol == "_mlir_ciface_softmax_f32_8192x8192"
               and ks[0].info == {"strategy": "row_per_cta"}, "kernels.json: entry 1")
        expect(ks[1].op == "logsumexp" and ks[1].info == {"block": 1024}, "kernels.json: entry 2")
        expect(ks[2].rows == 4 and ks[2].cols == 8 and ks[2].symbol == "_mlir_ciface_custom_entry",
               "kernels.json: explicit shape")
        p.write_text(json.dumps([{"name": "softmax_bf16_16384x1024"}]))
        ks = load_kernels_json(p)
        expect(len(ks) == 1 and ks[0].dtype == "bf16", "kernels.json: bare list")
        p.write_text(json.dumps([{"name": "mystery"}]))
        try:
            load_kernels_json(p)
            expect(False, "kernels.json: incomplete entry rejected")
        except ValueError:
            expect(True, "kernels.json: incomplete entry rejected")
        kk, notes, syms = discover_kernels(Path(td))
        expect(kk == [] and syms is None and any("does not exist" in n for n in notes),
               "discover without a library")

    # Selection.
    c = classify_only(["8192x8192", "bf16", "ours", "triton", "log_softmax"])
    expect(c == {"shapes": ["8192x8192"], "dtypes": ["bf16"], "ops": ["log_softmax"],
                 "kernels": ["ours", "triton_fused", "triton_online"]}, "classify --only")
    try:
        classify_only(["bogus"])
        expect(False, "--only rejects unknown tokens")
    except ValueError:
        expect(True, "--only rejects unknown tokens")
    parser = build_parser()
    a = parser.parse_args([])
    ours = [parse_symbol("_mlir_ciface_softmax_f32_8192x8192"),
            parse_symbol("_mlir_ciface_logsumexp_bf16_512x262144"),
            parse_symbol("_mlir_ciface_log_softmax_f32_3x5")]
    pl = make_plan(a, ours)
    expect(pl.shapes == list(DEFAULT_SHAPES) and pl.dtypes == ["f32", "bf16"]
           and pl.ops == ["softmax", "logsumexp"] and pl.kernels == list(KERNEL_KINDS),
           "default plan (ops auto from our kernels)")
    expect(len(pl.cases()) == 16 and pl.cases()[0] == ("softmax", (16384, 1024), "f32")
           and pl.cases()[1] == ("logsumexp", (16384, 1024), "f32"), "case order")
    a = parser.parse_args(["--only", "8192x8192,f32,ours,torch", "--ops", "softmax"])
    pl = make_plan(a, ours)
    expect(pl.shapes == [(8192, 8192)] and pl.dtypes == ["f32"] and pl.ops == ["softmax"]
           and pl.kernels == ["ours", "torch"], "--only filter")
    a = parser.parse_args(["--shapes", "100x200", "--ops", "all", "--device", "cpu"])
    pl = make_plan(a, ours)
    expect(pl.shapes == [(100, 200)] and pl.ops == list(OPS), "--shapes / --ops all")
    a = parser.parse_args(["--device", "cpu"])
    expect(make_plan(a, []).shapes == list(CPU_SHAPES), "cpu default shapes")
    expect(ours_for(ours, "softmax", (8192, 8192), "f32") == [ours[0]], "ours_for")
    expect(parse_online_configs("4096:8,8192:16:f") == [(4096, 8, True), (8192, 16, False)],
           "online configs")
    expect(online_configs_for(1024, parse_online_configs(DEFAULT_ONLINE_CONFIGS)) ==
           [(1024, 8, True), (1024, 16, True)], "online configs capped at the row")
    expect(next_pow2(1000) == 1024 and next_pow2(1024) == 1024 and next_pow2(1) == 1, "next_pow2")
    expect([fused_warps(b) for b in (1024, 2048, 4096, 262144)] == [4, 8, 16, 16], "fused warps")
    expect(bytes_moved("softmax", 8192, 8192, "f32") == 2 * 8192 * 8192 * 4, "bytes softmax")
    expect(bytes_moved("logsumexp", 512, 262144, "bf16") == 512 * 262144 * 2 + 512 * 2,
           "bytes logsumexp")

    # Statistics and formatting.
    expect(percentile([3, 1, 2], 50) == 2 and percentile([1, 2, 3, 4], 50) == 2.5, "median")
    expect(abs(percentile(list(range(11)), 10) - 1.0) < 1e-12, "p10")
    t = summarize_times([0.001, 0.003, 0.002])
    expect(abs(t["median_us"] - 2.0) < 1e-9 and t["n"] == 3, "summarize_times")
    tbl = md_table(["a", "bb"], [["x", 1], ["yyy", 22]], "lr")
    expect(tbl == "| a   | bb |\n|-----|---:|\n| x   |  1 |\n| yyy | 22 |", "md_table")
    expect(fmt(float("inf")) == "inf" and fmt(None) == "-" and fmt(1.25, 1) == "1.2"
           and fmt_err(3.2e-7) == "3.2e-07", "fmt")
    expect(sanitize({"a": float("nan"), "b": [float("-inf"), 1.5], "c": (1, "x")}) ==
           {"a": "nan", "b": ["-inf", 1.5], "c": [1, "x"]}, "sanitize")

    # Summary and markdown rendering on synthetic results.
    res = [
        {"op": "softmax", "shape": "8192x8192", "dtype": "f32", "kernel": "ours", "status": "ok",
         "gbps": 4000.0, "time": {"median_us": 134.2, "p10_us": 133.0, "p90_us": 136.0},
         "check": {"random": {"max_err": 1e-7}, "hostile": {"max_err": 2e-7},
                   "masked": {"observed": "0"}}},
        {"op": "softmax", "shape": "8192x8192", "dtype": "f32", "kernel": "ours:v2",
         "status": "fail", "gbps": 4500.0, "check": {}},
        {"op": "softmax", "shape": "8192x8192", "dtype": "f32", "kernel": "triton_fused",
         "status": "ok", "gbps": 3987.0, "check": {}},
        {"op": "softmax", "shape": "8192x8192", "dtype": "f32", "kernel": "torch", "status": "ok",
         "gbps": 2000.0, "check": {}},
        {"op": "softmax", "shape": "512x262144", "dtype": "f32", "kernel": "ours",
         "status": "not built", "check": {}},
    ]
    sm = summary_rows(res, 4200.0)
    s0 = sm[0]
    expect(s0["ours_kernel"] == "ours" and s0["ours_gbps"] == 4000.0
           and abs(s0["ours_over_triton_fused"] - 4000 / 3987) < 1e-12
           and abs(s0["ours_over_torch"] - 2.0) < 1e-12 and s0["triton_online_gbps"] is None
           and s0["best_baseline_gbps"] == 3987.0 and abs(s0["ours_over_copy"] - 4000 / 4200) < 1e-12
           and s0["anchor"] == {"triton_fused": 3987.0, "torch": 1914.0}, "summary row")
    expect(sm[1]["ours_status"] == "not built" and sm[1]["ours_gbps"] is None, "summary not built")
    doc = {"meta": {"command": "x", "device_name": "GPU"}, "copy": {"gbps": 4200.0, "bytes": 2**30},
           "results": res, "summary": sm, "notes": ["n1"], "complete": True}
    md = render_markdown(doc)
    expect("| softmax | 8192x8192  | f32   | ours " in md and "not built" in md and "1.00" in md,
           "render markdown")
    with tempfile.TemporaryDirectory() as td:
        jp, mp = write_outputs(doc, Path(td) / "o")
        back = json.loads(jp.read_text())
        expect(back["summary"][0]["ours_gbps"] == 4000.0 and mp.exists(), "write outputs")

    print(f"self-test: {passed} passed, {failed} failed")
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Benchmark softmax-mlir's compiled GPU softmax kernels against torch and "
                    "Triton (correctness vs float64 + CUDA-event timings).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  python3 bench/gpu/bench_softmax.py --lib-dir build-gpu/lib\n"
               "  python3 bench/gpu/bench_softmax.py --only 8192x8192,f32 --iters 50\n"
               "  python3 bench/gpu/bench_softmax.py --only ours,torch --ops all\n"
               "  python3 bench/gpu/bench_softmax.py --dry-run\n"
               "  python3 bench/gpu/bench_softmax.py --self-test\n")
    p.add_argument("--lib-dir", default="build-gpu/lib",
                   help=f"folder with {KERNEL_LIB}, {RUNTIME_LIB} and optionally {KERNELS_JSON} "
                        "(default: %(default)s)")
    p.add_argument("--out", default=None,
                   help="folder for gpu_softmax.json/.md (default: $OUT, else .)")
    p.add_argument("--only", default="",
                   help="comma-separated filter tokens: shapes (8192x8192), dtypes (f32,bf16), "
                        "ops (softmax,log_softmax,logsumexp), kernels (ours,torch,triton_fused,"
                        "triton_online,triton); alternatives within a category, AND across")
    p.add_argument("--shapes", default="", help="comma-separated ROWSxCOLS (default: the four "
                   "benchmark shapes; in --device cpu: " +
                   ",".join(f"{r}x{c}" for r, c in CPU_SHAPES) + ")")
    p.add_argument("--dtypes", default="", help="comma-separated, of f32,bf16,f16 (default f32,bf16)")
    p.add_argument("--ops", default="auto", help="comma-separated ops, 'all', or 'auto' = softmax "
                   "plus every op our library has a kernel for (default)")
    p.add_argument("--kernels", default="", help="comma-separated kinds of "
                   + ",".join(KERNEL_KINDS) + " (default: all)")
    p.add_argument("--iters", type=int, default=None,
                   help="timed iterations per kernel (default 50; cpu 5)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up calls (default 5; cpu 1)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--rotate", default="auto",
                   help="input/output buffer sets to rotate over while timing: N, or 'auto' "
                        "(enough sets for 4x the L2 when a case is smaller; default)")
    p.add_argument("--online-configs", default=DEFAULT_ONLINE_CONFIGS,
                   help="Triton online kernel configs tried for softmax, TILE:WARPS[:f|r] "
                        "(r: second pass walks tiles backwards, default); other ops reuse "
                        "softmax's best (default: %(default)s)")
    p.add_argument("--fused-max-block", type=int, default=262144,
                   help="skip the fused Triton kernel above this BLOCK (default %(default)s)")
    p.add_argument("--fused-subprocess-min-block", type=int, default=131072,
                   help="compile fused kernels of at least this BLOCK in child processes started "
                        "at the beginning, with a timeout (default %(default)s)")
    p.add_argument("--fused-compile-timeout", type=float, default=180.0,
                   help="seconds such a child compile may take from the start of the run "
                        "(default %(default)s)")
    p.add_argument("--copy-gib", type=float, default=1.0,
                   help="size of the copy-bandwidth buffer in GiB (default 1)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                   help="cpu: harness test without a GPU (torch on the CPU, small shapes, no "
                        "Triton; our library must then take host pointers)")
    p.add_argument("--dry-run", action="store_true",
                   help="list our kernels and the plan; needs no torch")
    p.add_argument("--self-test", action="store_true",
                   help="test the pure-Python parts; needs no torch")
    p.add_argument("--_precompile", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args._precompile:
        return precompile_child(args._precompile)
    if args.self_test:
        return self_test()
    if args.iters is None:
        args.iters = 5 if args.device == "cpu" else 50
    if args.warmup is None:
        args.warmup = 1 if args.device == "cpu" else 5
    if args.iters < 1 or args.warmup < 0:
        parser.error("--iters must be >= 1 and --warmup >= 0")
    if args.rotate != "auto" and not args.rotate.isdigit():
        parser.error("--rotate takes a count or 'auto'")
    try:
        parse_online_configs(args.online_configs)
    except (ValueError, KeyError) as e:
        parser.error(str(e))
    ours, notes, syms = discover_kernels(Path(args.lib_dir))
    try:
        plan = make_plan(args, ours)
    except ValueError as e:
        parser.error(str(e))
    if args.iters < 20 and args.device == "cuda":
        print(f"warning: --iters {args.iters} < 20", file=sys.stderr)
    if args.dry_run:
        return dry_run(args, plan, ours, notes)
    try:
        import torch  # noqa: F401, PLC0415
    except ImportError as e:
        print(f"error: torch is needed to benchmark ({e}); try --self-test or --dry-run",
              file=sys.stderr)
        return 2
    return Bench(args, plan, ours, notes, syms).run()


if __name__ == "__main__":
    sys.exit(main())
