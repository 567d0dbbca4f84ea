// RUN: softmax-opt %s --softmax-decompose=attention-key-tile-size=32 -split-input-file -verify-diagnostics

// The skip rule is stated per key tile of the op: a reference tiled
// otherwise would decide on other keys.
func.func @other_key_tile(%q: tensor<1x1x8x16xf32>, %k: tensor<1x1x64x16xf32>, %o: tensor<1x1x8x16xf32>, %t: f32) -> tensor<1x1x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op attention-key-tile-size=32 differs from the skip tile's 16 keys, by which a thresholded attention is folded}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<1x1x8x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) outs(%o : tensor<1x1x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 16])
  return %0 : tensor<1x1x8x16xf32>
}
