#!/usr/bin/env bash
# Builds, on the development machine (it needs Debian's MLIR 22), everything
# the GPU machine needs to exercise libsoftmax_cuda_runtime.so without MLIR:
#
#   <out>/libsoftmax_cuda_runtime.so   the runtime (copied from <build>/lib)
#   <out>/add-one-ptx.exe              test/Runtime/Inputs/add-one-main.cpp +
#   <out>/add-one-cubin.exe            add-one.mlir lowered with PTX (JIT) or
#                                      a cubin (ptxas), RUNPATH $ORIGIN
#   <out>/libadd_one_kernels.so        add-one.mlir (PTX) as a kernel library
#                                      for torch_stream.py (ctypes)
#   <out>/run-bundle.sh, torch_stream.py
#
# Usage: test/Runtime/device/build-bundle.sh [build-dir] [out-dir]
#        (defaults: build-rt, <build-dir>/runtime-device)
# Then on the GPU machine: <out-dir>/run-bundle.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-build-rt}
out=${2:-$build/runtime-device}
tools=/usr/lib/llvm-22/bin
cxx=${CXX:-clang++-22}
cuda=${CUDA_HOME:-/usr/local/cuda}

runtime="$build/lib/libsoftmax_cuda_runtime.so"
if [[ ! -f "$runtime" ]]; then
  echo "build-bundle: $runtime missing; build it first:" >&2
  echo "  ninja -C $build softmax_cuda_runtime" >&2
  exit 1
fi

rm -rf "$out"
mkdir -p "$out/stub"
cp "$runtime" "$out/"
cp "$here/run-bundle.sh" "$here/torch_stream.py" "$out/"
# Link-time only: lets the linker see libcuda.so.1 where no driver exists.
ln -s "$cuda/lib64/stubs/libcuda.so" "$out/stub/libcuda.so.1"

# The NVVM pipeline of test/Runtime/link-nvvm.test; FORMAT is isa or bin.
lower() {
  local format=$1 object=$2
  "$tools/mlir-opt" "$root/test/Runtime/Inputs/add-one.mlir" \
    --pass-pipeline="builtin.module(gpu-kernel-outlining,nvvm-attach-target{chip=sm_90 features=+ptx80},convert-scf-to-cf,gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-to-llvm,gpu-module-to-binary{format=$format toolkit=$cuda},convert-to-llvm,reconcile-unrealized-casts)" |
    "$tools/mlir-translate" --mlir-to-llvmir |
    "$tools/llc" -O2 -filetype=obj -relocation-model=pic -o "$object"
}

lower isa "$out/add-one-ptx.o"
lower bin "$out/add-one-cubin.o"

link_flags=(-L"$out" -lsoftmax_cuda_runtime "-Wl,-rpath,\$ORIGIN"
            "-Wl,-rpath-link,$out/stub")
for variant in ptx cubin; do
  "$cxx" -O1 -I"$root/include" "$root/test/Runtime/Inputs/add-one-main.cpp" \
    "$out/add-one-$variant.o" -o "$out/add-one-$variant.exe" "${link_flags[@]}"
done
"$cxx" -shared "$out/add-one-ptx.o" -o "$out/libadd_one_kernels.so" \
  "${link_flags[@]}" -Wl,--no-undefined
rm -rf "$out"/*.o "$out/stub"
echo "build-bundle: wrote $out:"
ls -l "$out"
