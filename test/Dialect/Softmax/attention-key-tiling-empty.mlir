// RUN: softmax-opt %s --softmax-decompose=attention-key-tile-size=16 -split-input-file | FileCheck %s

// A dimension of static size 0 (B here) makes every key tile empty; the
// tiling takes tensor.empty for it, where a tensor.extract_slice at offset 0
// fails upstream's verifier ("offset 0 is out-of-bounds: 0 >= 0"). Found by
// the differential soak once thresholded attention, which is always key
// tiled, reached these shapes.
// CHECK-LABEL: func.func @empty_batch
// CHECK:         scf.for
// CHECK-NOT:       tensor.extract_slice %arg1
// CHECK:           tensor.empty(%{{.*}}) : tensor<0x2x?x4xf32>
// CHECK-NOT:       tensor.extract_slice %arg1
// CHECK:         return
func.func @empty_batch(%q: tensor<0x4x3x4xf32>, %k: tensor<0x2x3x4xf32>, %v: tensor<0x2x3x1xf32>) -> tensor<0x4x3x1xf32> {
  %e = tensor.empty() : tensor<0x4x3x1xf32>
  %o = softmax.attention ins(%q, %k, %v : tensor<0x4x3x4xf32>, tensor<0x2x3x4xf32>, tensor<0x2x3x1xf32>) outs(%e : tensor<0x4x3x1xf32>) masked(zero) scale(0.125) causal
  return %o : tensor<0x4x3x1xf32>
}

// -----

// A head dimension of 0: the key tiles are empty tensors, the scores 0.
// CHECK-LABEL: func.func @empty_head_dim
// CHECK:         scf.for
// CHECK:           tensor.empty(%{{.*}}) : tensor<1x1x?x0xf32>
// CHECK:           tensor.extract_slice %arg2
func.func @empty_head_dim(%q: tensor<1x1x3x0xf32>, %k: tensor<1x1x40x0xf32>, %v: tensor<1x1x40x8xf32>, %t: f32) -> tensor<1x1x3x8xf32> {
  %e = tensor.empty() : tensor<1x1x3x8xf32>
  %o = softmax.attention ins(%q, %k, %v : tensor<1x1x3x0xf32>, tensor<1x1x40x0xf32>, tensor<1x1x40x8xf32>) outs(%e : tensor<1x1x3x8xf32>) masked(zero) scale(1.0) skip(lambda %t : f32, tile [2, 16])
  return %o : tensor<1x1x3x8xf32>
}

// -----

// Query tiles of 3 rows over B = 0: no rows to pad, so no tensor.pad (its
// buffer copy would be a subview at offset 0 of a dimension of size 0);
// each tile's verdict is the identity. Found by the differential soak
// (seed 585873111, module 37, program 85).
// CHECK-LABEL: func.func @empty_batch_query_tiles
// CHECK-NOT:     tensor.pad
// CHECK:         return
func.func @empty_batch_query_tiles(%q: tensor<0x1x5x4xf32>, %k: tensor<0x1x8x4xf32>, %t: f32, %n: tensor<2xi64>) -> (tensor<0x1x5x4xf32>, tensor<2xi64>) {
  %e = tensor.empty() : tensor<0x1x5x4xf32>
  %o:2 = softmax.attention ins(%q, %k, %k : tensor<0x1x5x4xf32>, tensor<0x1x8x4xf32>, tensor<0x1x8x4xf32>) outs(%e : tensor<0x1x5x4xf32>) masked(nan) window(8) skip(lambda %t : f32, tile [3, 16]) skip_counts(%n : tensor<2xi64>)
  return %o#0, %o#1 : tensor<0x1x5x4xf32>, tensor<2xi64>
}
