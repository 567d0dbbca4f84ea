"""Ahead-of-time GPU libraries for the benchmarks, and loading them.

``build_library`` lowers a module of ``llvm.emit_c_interface`` functions with
``softmax-opt --softmax-to-nvvm=format=bin`` (cubins + host code calling the
runtime ABI), translates and links it into ``lib<name>.so`` beside
``libsoftmax_cuda_runtime.so``, and reports each kernel's registers, spills
and shared memory from ``ptxas -v``: no LLVM or MLIR at run time.

``Library`` loads such a library next to the runtime and calls its
functions on torch tensors (strided memref descriptors of any rank), on
torch's current stream.
"""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LLVM = Path("/usr/lib/llvm-22/bin")


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return r


def compile_unit(module_text: str, stem: str, out: Path, build: Path, toolkit: str,
                 options: str = "", chip: str = "sm_90") -> tuple[Path, dict]:
    """Lowers one module to an object in `out`; returns it and ptxas' figures
    (registers, spills, shared memory, mma.sync, wgmma and ldmatrix counts)
    per kernel. `options`: more softmax-to-nvvm options."""
    opt = build / "bin" / "softmax-opt"
    out.mkdir(parents=True, exist_ok=True)
    module = out / f"{stem}.mlir"
    module.write_text(module_text)
    pipeline = f"--softmax-to-nvvm=chip={chip} toolkit={toolkit} {options}".strip()
    report = {}
    isa = run([str(opt), str(module), pipeline + " format=isa"]).stdout
    for m in re.finditer(r'gpu\.binary @(\w+) .*?assembly = "(.*?)"', isa, re.S):
        ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda h: chr(int(h[1], 16)), m[2])
        path = out / f"{m[1]}.ptx"
        path.write_text(ptx)
        info = run([f"{toolkit}/bin/ptxas", f"-arch={chip}", "-v", str(path),
                    "-o", os.devnull]).stderr
        regs = re.search(r"Used (\d+) registers", info)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", info)
        smem = re.search(r"(\d+) bytes smem", info)
        report[m[1]] = {"registers": int(regs[1]) if regs else None,
                        "spill_store_bytes": int(spill[1]) if spill else None,
                        "spill_load_bytes": int(spill[2]) if spill else None,
                        "smem_bytes": int(smem[1]) if smem else None,
                        "mma_sync": ptx.count("mma.sync"),
                        "wgmma": ptx.count("wgmma.mma_async"),
                        "ldmatrix": ptx.count("ldmatrix")}
    lowered = out / f"{stem}.llvm.mlir"
    run([str(opt), str(module), pipeline + " format=bin", "-o", str(lowered)])
    ir = out / f"{stem}.ll"
    run([str(LLVM / "mlir-translate"), "--mlir-to-llvmir", str(lowered), "-o", str(ir)])
    obj = out / f"{stem}.o"
    run([str(LLVM / "clang"), "-c", "-O2", "-fPIC", "-Wno-override-module", str(ir),
         "-o", str(obj)])
    return obj, report


def link(objects: list, name: str, out: Path, build: Path) -> Path:
    """lib<name>.so from `objects`, beside a copy of the runtime it needs."""
    runtime = build / "lib" / "libsoftmax_cuda_runtime.so"
    run(["cp", str(runtime), str(out / runtime.name)])
    lib = out / f"lib{name}.so"
    run([str(LLVM / "clang"), "-shared", "-fuse-ld=lld", *map(str, objects),
         "-o", str(lib), f"-L{out}", "-lsoftmax_cuda_runtime",
         "-Wl,-rpath,$ORIGIN", "-Wl,--no-undefined"])
    return lib


def build_library(module_text: str, name: str, out: Path, build: Path,
                  toolkit: str, options: str = "") -> dict:
    """Writes lib<name>.so into `out`; returns ptxas' figures per kernel."""
    obj, report = compile_unit(module_text, name, out, build, toolkit, options)
    link([obj], name, out, build)
    return report


def memref_type(rank: int) -> type:
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def memref(t) -> ctypes.Structure:
    """The memref descriptor of a torch tensor (its own strides)."""
    m = memref_type(t.dim())()
    m.allocated = m.aligned = t.data_ptr()
    m.offset = 0
    for i in range(t.dim()):
        m.sizes[i] = t.shape[i]
        m.strides[i] = t.stride(i)
    return m


class Library:
    """lib<name>.so and the runtime it links, called on torch's stream."""

    def __init__(self, lib_dir: Path, name: str):
        self.rt = ctypes.CDLL(str(lib_dir / "libsoftmax_cuda_runtime.so"),
                              mode=ctypes.RTLD_GLOBAL)
        self.rt.softmaxRuntimeSetStream.argtypes = [ctypes.c_void_p]
        self.rt.softmaxRuntimeGetLastError.restype = ctypes.c_int
        self.rt.softmaxRuntimeGetLastErrorString.restype = ctypes.c_char_p
        self.lib = ctypes.CDLL(str(lib_dir / f"lib{name}.so"))

    def call(self, function: str, *tensors):
        """A closure running `function` on `tensors`, and the descriptors it
        keeps alive."""
        import torch
        f = getattr(self.lib, f"_mlir_ciface_{function}")
        args = [memref(t) for t in tensors]
        ptrs = [ctypes.byref(a) for a in args]
        self.rt.softmaxRuntimeSetStream(
            ctypes.c_void_p(torch.cuda.current_stream().cuda_stream or 1))

        def go():
            f(*ptrs)
        return go, args

    def check_error(self):
        if self.rt.softmaxRuntimeGetLastError():
            raise RuntimeError(self.rt.softmaxRuntimeGetLastErrorString().decode())
