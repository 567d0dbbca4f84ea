#!/usr/bin/env bash
# Builds softmax-mlir (scripts/setup.sh), compiles examples/softmax.mlir with
# softmax-opt to the LLVM dialect and runs it with mlir-runner, which prints
# the softmax rows.
# Usage: bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
source scripts/common.sh

EXAMPLE=examples/softmax.mlir
LLVM_LIB=$LLVM_PREFIX/lib
if [[ ! -f "$EXAMPLE" ]]; then
  # TODO: examples/softmax.mlir (a func @main that calls softmax on a
  # constant and prints the rows with printMemrefF32) is not written yet.
  echo "demo: $EXAMPLE does not exist yet; nothing to run" >&2
  exit 1
fi

echo "=== $EXAMPLE ==="
"$BUILD_DIR/bin/softmax-opt" --softmax-raise --softmax-select-algorithm \
    --softmax-to-cpu "$EXAMPLE" \
  | "$LLVM_PREFIX/bin/mlir-runner" -e main -entry-point-result=void \
      -shared-libs="$LLVM_LIB/libmlir_c_runner_utils.so,$LLVM_LIB/libmlir_runner_utils.so"
