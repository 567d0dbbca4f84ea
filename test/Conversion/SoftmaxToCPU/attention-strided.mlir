// RUN: softmax-opt %s --softmax-split-attention-keys=splits=2 --softmax-to-cpu | FileCheck %s

// A split's keys are a strided view of the cache (with Hkv > 1 each head's
// slice is apart from the next). The CPU kernel indexes every dimension,
// so it reads them in place: the whole split reaches LLVM.
// CHECK-LABEL: llvm.func @split
// CHECK-NOT: softmax.
// CHECK: llvm.return
func.func @split(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x64x16xf32>, %v: tensor<1x2x64x16xf32>, %o: tensor<1x2x1x16xf32>) -> tensor<1x2x1x16xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x2x1x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>) outs(%o : tensor<1x2x1x16xf32>) masked(zero)
  return %r : tensor<1x2x1x16xf32>
}
