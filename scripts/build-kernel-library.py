#!/usr/bin/env python3
"""Builds an ahead-of-time GPU kernel library with a C ABI.

For every kernel spec it writes a func on memrefs that calls one softmax
op, compiles the module with ``softmax-opt --softmax-to-nvvm`` (cubins
through ptxas), translates the host code to LLVM IR, compiles it to an
object and links it with ``libsoftmax_cuda_runtime.so`` into
``libsoftmax_kernels.so``. The result needs neither LLVM nor MLIR at run
time: a C, C++ or Python (ctypes) program calls

    void _mlir_ciface_<name>(MemRef2D *input, MemRef2D *output);

with descriptors over device pointers (``softmax_kernels.h``). Also writes
``kernels.json`` (the index: op, dtype, shape, algorithm, strategy,
registers and spills from ``ptxas -v``).

Spec syntax: ``op:dtype:RxC[:algorithm[:suffix[:overrides]]]``, e.g.
``softmax:f32:8192x8192`` or ``softmax:bf16:512x262144:exp_pair:v_exp``;
overrides replace the mapping heuristic's choice (``T=512,K=8,S=16,R=1,V=4``
for threads per row, cached vectors, splits, rows per block, vector width;
``U=4`` for the vectors a streamed row loads per iteration; ``M=cluster`` or
``M=global`` for how split rows merge; ``D=reverse`` or ``D=forward`` for the
direction of a streamed row's second pass).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LLVM = Path("/usr/lib/llvm-22/bin")

BENCH_SHAPES = ["16384x1024", "8192x8192", "4096x32768", "512x262144"]
DEFAULT_SPECS = (
    [f"softmax:{t}:{s}" for t in ("f32", "bf16") for s in BENCH_SHAPES]
    + [f"softmax:f32:{s}:{a}:{a}" for s in BENCH_SHAPES
       for a in ("three_pass", "exp_pair")]
    + [f"{op}:{t}:{s}" for op in ("log_softmax", "logsumexp")
       for t in ("f32", "bf16") for s in ("8192x8192", "512x262144")]
    # Odd shapes: tails, no vector width, single rows, split prime rows.
    + ["softmax:f32:4099x7", "softmax:f32:333x1031", "softmax:bf16:333x1031",
       "softmax:f32:1x65536", "softmax:f32:64x100003",
       "log_softmax:f32:64x100003", "logsumexp:f32:333x1031"]
)


@dataclass
class Spec:
    op: str
    dtype: str
    rows: int
    cols: int
    algorithm: str
    suffix: str
    overrides: str = ""

    FIELDS = {"T": "threads_per_row", "K": "cached_vectors", "S": "splits",
              "R": "rows_per_block", "V": "vector_width", "U": "unroll",
              "M": "split_merge", "D": "reread"}
    WORDS = {"M": ("global", "cluster"), "D": ("forward", "reverse")}

    def strategy_attr(self) -> str:
        """The per-op override attribute that softmax-map-to-gpu reads."""
        fields = []
        for item in filter(None, self.overrides.split(",")):
            key, _, value = item.partition("=")
            if key not in self.FIELDS or not (
                    value in self.WORDS[key] if key in self.WORDS
                    else value.isdigit()):
                raise SystemExit(f"bad override '{item}' in {self.name}")
            fields.append(f"{self.FIELDS[key]} = {value}")
        if not fields:
            return ""
        return (" {softmax.strategy = #softmax.gpu_strategy<"
                + ", ".join(fields) + ">}")

    @property
    def name(self) -> str:
        base = f"{self.op}_{self.dtype}_{self.rows}x{self.cols}"
        return f"{base}_{self.suffix}" if self.suffix else base

    def mlir(self) -> str:
        t = self.dtype
        x = f"memref<{self.rows}x{self.cols}x{t}>"
        y = x if self.op != "logsumexp" else f"memref<{self.rows}x{t}>"
        return (
            f"func.func @{self.name}(%x: {x}, %y: {y}) "
            "attributes {llvm.emit_c_interface} {\n"
            f"  softmax.{self.op} ins(%x : {x}) outs(%y : {y}) dimension(1) "
            f"masked(zero) algorithm({self.algorithm}){self.strategy_attr()}\n"
            "  return\n}\n")


def parse_spec(text: str) -> Spec:
    parts = text.split(":")
    if len(parts) < 3:
        raise SystemExit(f"bad spec '{text}': expected op:dtype:RxC[:alg[:suffix]]")
    op, dtype, shape = parts[:3]
    if op not in ("softmax", "log_softmax", "logsumexp"):
        raise SystemExit(f"bad spec '{text}': unknown op '{op}'")
    if dtype not in ("f32", "bf16", "f16"):
        raise SystemExit(f"bad spec '{text}': unknown dtype '{dtype}'")
    m = re.fullmatch(r"(\d+)x(\d+)", shape)
    if not m:
        raise SystemExit(f"bad spec '{text}': shape must be RxC")
    alg = parts[3] if len(parts) > 3 else "online"
    suffix = parts[4] if len(parts) > 4 else ""
    overrides = parts[5] if len(parts) > 5 else ""
    return Spec(op, dtype, int(m[1]), int(m[2]), alg, suffix, overrides)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.stderr.write(f"command failed: {' '.join(cmd)}\n{p.stderr}")
        raise SystemExit(1)
    return p


def strategies(mapped: Path) -> dict[str, dict]:
    """The strategy that softmax-map-to-gpu chose for each function."""
    result: dict[str, dict] = {}
    text = mapped.read_text()
    for func in re.finditer(r"func\.func @(\w+)\(.*?\n  \}", text, re.S):
        m = re.search(r"softmax\.strategy = #softmax\.gpu_strategy<([^>]*)>",
                      func[0])
        if m:
            result[func[1]] = {k: int(v) if v.isdigit() else v for k, v in
                               re.findall(r"(\w+) = (\w+)", m[1])}
    return result


def ptxas_report(softmax_opt: Path, module: Path, chip: str, toolkit: str,
                 work: Path, extra: str = "") -> dict[str, dict]:
    """Registers and spills of every kernel, from ptxas -v on the PTX."""
    out = run([str(softmax_opt), str(module),
               f"--softmax-to-nvvm=chip={chip} format=isa toolkit={toolkit}{extra}"]).stdout
    report: dict[str, dict] = {}
    for m in re.finditer(r'gpu\.binary @(\w+) .*?assembly = "(.*?)"', out, re.S):
        ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda h: chr(int(h[1], 16)), m[2])
        path = work / f"{m[1]}.ptx"
        path.write_text(ptx)
        info = run([f"{toolkit}/bin/ptxas", f"-arch={chip}", "-v", str(path),
                    "-o", os.devnull]).stderr
        regs = re.search(r"Used (\d+) registers", info)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", info)
        report[m[1].removesuffix("_kernel")] = {
            "registers": int(regs[1]) if regs else None,
            "spill_store_bytes": int(spill[1]) if spill else None,
            "spill_load_bytes": int(spill[2]) if spill else None,
        }
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", nargs="*", help="kernel specs (default: the benchmark set)")
    ap.add_argument("--out-dir", default=str(ROOT / "build-gpu" / "lib"))
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--toolkit", default=os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    ap.add_argument("--no-cache-hints", action="store_true",
                    help="softmax-to-nvvm with cache-hints=false (the streamed "
                         "rows' last pass without .cs, to time the hint)")
    args = ap.parse_args()

    specs = [parse_spec(s) for s in (args.specs or DEFAULT_SPECS)]
    build = Path(args.build_dir)
    softmax_opt = build / "bin" / "softmax-opt"
    runtime = build / "lib" / "libsoftmax_cuda_runtime.so"
    for needed in (softmax_opt, runtime):
        if not needed.exists():
            raise SystemExit(f"missing {needed}: build the project first")
    out = Path(args.out_dir)
    work = out.parent / "work"
    work.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)

    module = work / "kernels.mlir"
    module.write_text("\n".join(s.mlir() for s in specs))
    mapped = work / "kernels.mapped.mlir"
    run([str(softmax_opt), str(module), f"--softmax-map-to-gpu=chip={args.chip}",
         "-o", str(mapped)])
    chosen = strategies(mapped)
    extra = " cache-hints=false" if args.no_cache_hints else ""
    regs = ptxas_report(softmax_opt, module, args.chip, args.toolkit, work, extra)
    lowered = work / "kernels.llvm.mlir"
    run([str(softmax_opt), str(module),
         f"--softmax-to-nvvm=chip={args.chip} format=bin toolkit={args.toolkit}{extra}",
         "-o", str(lowered)])
    ir = work / "kernels.ll"
    run([str(LLVM / "mlir-translate"), "--mlir-to-llvmir", str(lowered), "-o", str(ir)])
    obj = work / "kernels.o"
    run([str(LLVM / "clang"), "-c", "-O2", "-fPIC", "-Wno-override-module",
         str(ir), "-o", str(obj)])
    objects = [str(obj)]
    lib = out / "libsoftmax_kernels.so"
    # The runtime sits beside the library; RUNPATH $ORIGIN finds it there.
    run(["cp", str(runtime), str(out / runtime.name)])
    run([str(LLVM / "clang"), "-shared", "-fuse-ld=lld", *objects, "-o", str(lib),
         f"-L{out}", "-lsoftmax_cuda_runtime", "-Wl,-rpath,$ORIGIN",
         "-Wl,--no-undefined"])

    index = []
    for s in specs:
        index.append({"name": s.name, "op": s.op, "dtype": s.dtype, "rows": s.rows,
                      "cols": s.cols, "algorithm": s.algorithm, "masked": "zero",
                      "variant": s.suffix, "strategy": chosen.get(s.name, {}),
                      "ptxas": regs.get(s.name, {})})
    (out / "kernels.json").write_text(json.dumps({"chip": args.chip, "kernels": index},
                                                 indent=1))
    header = ["/* Generated by scripts/build-kernel-library.py. */",
              "#include <stdint.h>",
              "typedef struct { void *allocated, *aligned; int64_t offset;"
              " int64_t sizes[2], strides[2]; } MemRef2D;",
              "typedef struct { void *allocated, *aligned; int64_t offset;"
              " int64_t sizes[1], strides[1]; } MemRef1D;"]
    for s in specs:
        out_t = "MemRef1D" if s.op == "logsumexp" else "MemRef2D"
        header.append(f"void _mlir_ciface_{s.name}(MemRef2D *input, {out_t} *output);")
    (out / "softmax_kernels.h").write_text("\n".join(header) + "\n")
    for s in specs:
        print(f"{s.name}: {chosen.get(s.name)} {regs.get(s.name)}")
    print(f"wrote {lib}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
