#!/usr/bin/env bash
# Builds the end-to-end GPU program (run here): gpu-e2e.mlir through
# softmax-to-nvvm, linked with e2e-main.c and libsoftmax_cuda_runtime into
# build-gpu/e2e/. On the GPU machine run build-gpu/e2e/e2e (it needs only the
# CUDA driver); without a GPU it reports the runtime's error and fails.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$ROOT"
BUILD=$(realpath "${SOFTMAX_BUILD_DIR:-build}")
OUT=${E2E_OUT:-build-gpu/e2e}
LLVM=/usr/lib/llvm-22/bin
mkdir -p "$OUT"
"$BUILD/bin/softmax-opt" test/Pipelines/Inputs/gpu-e2e.mlir \
  --softmax-to-nvvm="chip=sm_90 format=bin" -o "$OUT/e2e.llvm.mlir"
"$LLVM/mlir-translate" --mlir-to-llvmir "$OUT/e2e.llvm.mlir" -o "$OUT/e2e.ll"
"$LLVM/clang" -c -O2 -fPIC -Wno-override-module "$OUT/e2e.ll" -o "$OUT/e2e.o"
cp "$BUILD/lib/libsoftmax_cuda_runtime.so" "$OUT/"
"$LLVM/clang" -O2 test/Pipelines/device/e2e-main.c "$OUT/e2e.o" -o "$OUT/e2e" \
  -L"$OUT" -lsoftmax_cuda_runtime -lm -Wl,-rpath,'$ORIGIN' \
  -Wl,--allow-shlib-undefined
echo "built $OUT/e2e"
