#!/usr/bin/env bash
# Builds softmax-mlir (scripts/setup.sh), then compiles examples/softmax.mlir
# (a linalg.softmax over 4 rows of logits) with
#   softmax-opt --softmax-raise --softmax-select-algorithm --softmax-to-cpu
# once with the cost model's choice and once per forced algorithm, runs each
# with mlir-runner, which prints the rows, and checks them against a float64
# reference (examples/check_demo.py).
# Usage: bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
source scripts/common.sh

EXAMPLE=examples/softmax.mlir
LLVM_LIB=$LLVM_PREFIX/lib
RUNNER_LIBS="$LLVM_LIB/libmlir_c_runner_utils.so,$LLVM_LIB/libmlir_runner_utils.so"

run_demo() {
  local select=$1
  echo "=== $EXAMPLE: softmax-opt --softmax-raise $select --softmax-to-cpu | mlir-runner ==="
  "$BUILD_DIR/bin/softmax-opt" --softmax-raise "$select" --softmax-to-cpu "$EXAMPLE" \
    | "$LLVM_PREFIX/bin/mlir-runner" -e main -entry-point-result=void \
        -shared-libs="$RUNNER_LIBS" \
    | /usr/bin/python3 examples/check_demo.py
  echo
}

run_demo --softmax-select-algorithm
for algorithm in three_pass online exp_pair; do
  run_demo "--softmax-select-algorithm=force=$algorithm"
done
