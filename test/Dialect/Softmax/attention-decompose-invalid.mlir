// RUN: softmax-opt %s --softmax-decompose -split-input-file -verify-diagnostics
// RUN: softmax-opt %s --softmax-decompose="attention-key-tile-size=8" -split-input-file -verify-diagnostics
// RUN: not softmax-opt %s --softmax-decompose="attention-key-tile-size=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: softmax-decompose: attention-key-tile-size must be positive or 0, got -1
// What the attention decomposition cannot take fails the pass with the
// reason, untiled and tiled alike.

// The key/value head of query head h is h floordiv (H / Hkv), a constant
// of the indexing maps: unknown when H is dynamic and Hkv is not 1.
func.func @dynamic_group(%q: tensor<1x?x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x?x8x16xf32>) -> tensor<1x?x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op decomposition needs a static number of query heads per key/value head (H and Hkv static, or Hkv = 1), got H = ?, Hkv = 2}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x?x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x?x8x16xf32>) masked(zero)
  return %r : tensor<1x?x8x16xf32>
}

// -----

func.func @dynamic_kv_heads(%q: tensor<1x4x8x16xf32>, %k: tensor<1x?x8x16xf32>, %v: tensor<1x?x8x16xf32>, %o: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op decomposition needs a static number of query heads per key/value head (H and Hkv static, or Hkv = 1), got H = 4, Hkv = ?}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x4x8x16xf32>, tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32>) outs(%o : tensor<1x4x8x16xf32>) masked(zero)
  return %r : tensor<1x4x8x16xf32>
}

// -----

func.func @on_buffers(%q: memref<1x2x8x16xf32>, %k: memref<1x2x8x16xf32>, %v: memref<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op decomposition expects tensors; run softmax-decompose before bufferization}}
  softmax.attention ins(%q, %k, %v : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>) masked(zero)
  return
}
