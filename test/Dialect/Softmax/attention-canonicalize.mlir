// RUN: softmax-opt %s --canonicalize | FileCheck %s

// On tensors the op has no side effects, so an unused one is erased; on
// memrefs it writes its inits and stays.
// CHECK-LABEL: func @effects
// CHECK-NOT: softmax.attention ins({{.*}} : tensor
// CHECK: softmax.attention ins({{.*}} : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs
// CHECK-NOT: softmax.attention
func.func @effects(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>,
                   %mq: memref<1x2x8x16xf32>, %mo: memref<1x2x8x16xf32>) {
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
      outs(%o : tensor<1x2x8x16xf32>) masked(zero)
  softmax.attention ins(%mq, %mq, %mq : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>)
      outs(%mo : memref<1x2x8x16xf32>) masked(zero)
  return
}
