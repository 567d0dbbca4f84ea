// RUN: softmax-opt %s --softmax-to-cpu --mlir-print-ir-after=softmax-decompose -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: softmax-opt %s --softmax-to-cpu=vector-width=0 --mlir-print-ir-after=softmax-decompose -o /dev/null 2>&1 | FileCheck %s --check-prefix=REF
// RUN: softmax-opt %s --softmax-to-cpu | FileCheck %s --check-prefix=LLVM

// softmax-to-cpu keeps softmax.topk whole through softmax-decompose and
// maps it after bufferization (the one-read kernel, TopKToCPU.cpp); without
// the vector mapping (vector-width=0) it decomposes it into the reference:
// the rows' lse (here linalg too), then k selection passes.
// PIPE-LABEL: func.func @topk
// PIPE-NOT:   softmax.logsumexp
// PIPE:       softmax.topk
// REF-LABEL:  func.func @topk
// REF:        linalg.generic
// REF:        scf.for
// REF:          linalg.generic
// REF-NOT:    softmax.topk
// LLVM-LABEL: llvm.func @topk
// LLVM:       llvm.intr.vector.reduce.or
// LLVM-NOT:   softmax.
func.func @topk(%x: tensor<4x1001xbf16>) -> (tensor<4x50xf32>, tensor<4x50xi32>) {
  %p0 = tensor.empty() : tensor<4x50xf32>
  %i0 = tensor.empty() : tensor<4x50xi32>
  %p, %i = softmax.topk ins(%x : tensor<4x1001xbf16>) outs(%p0, %i0 : tensor<4x50xf32>, tensor<4x50xi32>) k(50)
  return %p, %i : tensor<4x50xf32>, tensor<4x50xi32>
}
