#!/usr/bin/env bash
# Builds softmax-mlir (scripts/setup.sh), then compiles examples/softmax.mlir
# (a linalg.softmax over 4 rows of logits) with
#   softmax-opt --softmax-raise --softmax-select-algorithm --softmax-to-cpu
# once with the cost model's choice and once per forced algorithm (vector
# code at the host's width), then on OpenMP threads and on the scalar path;
# runs each
# with mlir-runner, which prints the rows, and checks them against a float64
# reference (examples/check_demo.py). Then attention as front ends write it
# in linalg (Q K^T, scale, additive mask, linalg.softmax, P V, on fresh
# random data), raised to softmax.attention, lowered with --softmax-to-cpu,
# run and checked against float64 (test/Integration/lib/attention_check.py).
# Last, real front-end IR from the raise corpus: two functions printed as
# softmax-raise leaves them, and the whole corpus run against float64.
# Usage: bash scripts/demo.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
source scripts/common.sh

EXAMPLE=examples/softmax.mlir
LLVM_LIB=$LLVM_PREFIX/lib
RUNNER_LIBS="$LLVM_LIB/libmlir_c_runner_utils.so,$LLVM_LIB/libmlir_runner_utils.so"

# run_demo SELECT [PIPELINE-OPTIONS [EXTRA-RUNNER-LIBS]]
run_demo() {
  local select=$1 opts=${2:-} libs=$RUNNER_LIBS${3:+,$3}
  local pipeline=--softmax-to-cpu${opts:+=$opts}
  echo "=== $EXAMPLE: softmax-opt --softmax-raise $select $pipeline | mlir-runner ==="
  "$BUILD_DIR/bin/softmax-opt" --softmax-raise "$select" "$pipeline" "$EXAMPLE" \
    | "$LLVM_PREFIX/bin/mlir-runner" -e main -entry-point-result=void \
        -shared-libs="$libs" \
    | /usr/bin/python3 examples/check_demo.py
  echo
}

# The host's vector width, rows in order.
run_demo --softmax-select-algorithm
for algorithm in three_pass online exp_pair; do
  run_demo "--softmax-select-algorithm=force=$algorithm"
done
# Rows on all hardware threads (OpenMP), and the scalar path.
run_demo --softmax-select-algorithm "threads=0" "$LLVM_LIB/libomp.so"
run_demo --softmax-select-algorithm "vector-width=0"

# Attention: linalg graphs -> softmax-raise -> softmax.attention -> CPU.
echo "=== attention in linalg: softmax-opt --softmax-raise --softmax-to-cpu | mlir-runner ==="
/usr/bin/python3 test/Integration/lib/attention_check.py --form linalg \
  --softmax-opt "$BUILD_DIR/bin/softmax-opt" --mlir-runner "$LLVM_PREFIX/bin/mlir-runner" \
  --runner-libs "$RUNNER_LIBS"

# Real front-end IR (test/Dialect/Softmax/Raise/Corpus, origins in its
# SOURCES.md): what softmax-raise makes of torch-mlir's GPT-2 attention and
# of MLIR's tosa-to-linalg softmax, with the reason for anything it leaves,
# then the whole corpus raised, run on the CPU and checked against float64.
CORPUS=test/Dialect/Softmax/Raise/Corpus
for f in torch-mlir-gpt2-causal-attention.mlir tosa-softmax.mlir; do
  echo "=== $CORPUS/$f: softmax-opt "--softmax-raise=remarks=true remark-counts=true" --canonicalize ==="
  "$BUILD_DIR/bin/softmax-opt" "$CORPUS/$f" \
    "--softmax-raise=remarks=true remark-counts=true" --canonicalize 2>&1 \
    | grep -v '^ *//'
  echo
done
echo "=== $CORPUS: every function raised, run on the CPU, checked against float64 ==="
/usr/bin/python3 test/Integration/lib/corpus_check.py \
  --softmax-opt "$BUILD_DIR/bin/softmax-opt" --mlir-opt "$LLVM_PREFIX/bin/mlir-opt" \
  --mlir-runner "$LLVM_PREFIX/bin/mlir-runner" --runner-libs "$RUNNER_LIBS" \
  --corpus "$CORPUS"
