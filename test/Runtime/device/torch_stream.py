"""The stream override from PyTorch: a kernel library made by MLIR's
gpu-to-llvm (libadd_one_kernels.so, add_one_device from
test/Runtime/Inputs/add-one.mlir) runs on torch's current stream, returns as
soon as its launch is enqueued, and is timed with CUDA events.

Usage: python3 torch_stream.py <bundle-dir>   (see build-bundle.sh)
"""

import ctypes
import os
import sys

import torch

LEGACY_STREAM = 1  # SOFTMAX_RUNTIME_STREAM_LEGACY


class MemRef1D(ctypes.Structure):
    _fields_ = [
        ("allocated", ctypes.c_void_p),
        ("aligned", ctypes.c_void_p),
        ("offset", ctypes.c_int64),
        ("size", ctypes.c_int64),
        ("stride", ctypes.c_int64),
    ]


def main(bundle):
    runtime = ctypes.CDLL(os.path.join(bundle, "libsoftmax_cuda_runtime.so"))
    kernels = ctypes.CDLL(os.path.join(bundle, "libadd_one_kernels.so"))
    runtime.softmaxRuntimeSetStream.argtypes = [ctypes.c_void_p]
    runtime.softmaxRuntimeGetLastError.restype = ctypes.c_int
    runtime.softmaxRuntimeGetLastErrorString.restype = ctypes.c_char_p
    add_one = kernels._mlir_ciface_add_one_device
    add_one.argtypes = [ctypes.POINTER(MemRef1D)]

    def check_errors(where):
        code = runtime.softmaxRuntimeGetLastError()
        if code:
            msg = runtime.softmaxRuntimeGetLastErrorString().decode()
            raise SystemExit(f"{where}: runtime error {code}: {msg}")

    failures = 0
    n, calls = 1 << 22, 100
    streams = [("default stream", torch.cuda.default_stream()),
               ("side stream", torch.cuda.Stream())]
    for name, stream in streams:
        with torch.cuda.stream(stream):
            x = torch.arange(n, dtype=torch.float32, device="cuda")
            ref = MemRef1D(x.data_ptr(), x.data_ptr(), 0, n, 1)
            handle = torch.cuda.current_stream().cuda_stream or LEGACY_STREAM
            runtime.softmaxRuntimeSetStream(handle)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            add_one(ctypes.byref(ref))  # warm-up: loads the module
            start.record()
            for _ in range(calls):
                add_one(ctypes.byref(ref))
            end.record()
            runtime.softmaxRuntimeSetStream(None)
            check_errors(name)
            torch.cuda.synchronize()
            ms = start.elapsed_time(end) / calls
            expected = torch.arange(n, dtype=torch.float32, device="cuda") + calls + 1
            ok = torch.equal(x, expected)
            gbps = 2 * n * 4 / (ms * 1e-3) / 1e9
            print(f"{name}: {'PASS' if ok else 'FAIL'} "
                  f"({ms * 1e3:.1f} us per call, {gbps:.0f} GB/s)")
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)))
