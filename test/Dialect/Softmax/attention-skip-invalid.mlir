// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @tile_rank(%q: tensor<1x2x8x16xf32>, %t: f32) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op skip tile must be [query rows, keys], each in [1, 2^20], got [16]}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [16])
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @tile_zero(%q: tensor<1x2x8x16xf32>, %t: f32) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op skip tile must be [query rows, keys], each in [1, 2^20], got [1, 0]}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 0])
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @tile_huge(%q: tensor<1x2x8x16xf32>, %t: f32) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op skip tile must be [query rows, keys], each in [1, 2^20], got [1, 9223372036854775807]}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 9223372036854775807])
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @per_batch_size(%q: tensor<2x2x8x16xf32>, %t: tensor<3xf32>) -> tensor<2x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op skip threshold has 3 entries, but the batch B is 2}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) outs(%q : tensor<2x2x8x16xf32>) masked(zero) skip(lambda %t : tensor<3xf32>, tile [1, 8])
  return %0 : tensor<2x2x8x16xf32>
}

// -----

func.func @per_batch_rank(%q: tensor<2x2x8x16xf32>, %t: tensor<2x1xf32>) -> tensor<2x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op skip threshold must be an f32 scalar or one f32 per batch entry ([B]), got rank 2}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) outs(%q : tensor<2x2x8x16xf32>) masked(zero) skip(lambda %t : tensor<2x1xf32>, tile [1, 8])
  return %0 : tensor<2x2x8x16xf32>
}

// -----

func.func @threshold_type(%q: tensor<1x2x8x16xf32>, %t: f16) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op operand #3 must be 32-bit float, or ranked tensor or memref of 32-bit float values, but got 'f16'}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) skip(lambda %t : f16, tile [1, 8])
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @counts_shape(%q: tensor<1x2x8x16xf32>, %t: f32, %n: tensor<3xi64>) -> (tensor<1x2x8x16xf32>, tensor<3xi64>) {
  // expected-error @+1 {{'softmax.attention' op skip_counts must be [2] (live tiles, skipped tiles), got 'tensor<3xi64>'}}
  %0:2 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 8]) skip_counts(%n : tensor<3xi64>)
  return %0#0, %0#1 : tensor<1x2x8x16xf32>, tensor<3xi64>
}

// -----

func.func @counts_without_threshold(%q: tensor<1x2x8x16xf32>, %n: tensor<2xi64>) -> (tensor<1x2x8x16xf32>, tensor<2xi64>) {
  // expected-error @+1 {{'softmax.attention' op has skip_counts but no skip threshold}}
  %0:2 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) skip_counts(%n : tensor<2xi64>)
  return %0#0, %0#1 : tensor<1x2x8x16xf32>, tensor<2xi64>
}

// -----

func.func @counts_memref_on_tensors(%q: tensor<1x2x8x16xf32>, %t: f32, %n: memref<2xi64>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op expects all operands to be tensors or all to be memrefs}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 8]) skip_counts(%n : memref<2xi64>)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// The generic form can leave out the tile; the verifier wants all three.
func.func @generic_without_tile(%q: tensor<1x2x8x16xf32>, %t: f32) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op expects the skip threshold operand, 'threshold_kind' and 'skip_tile' together}}
  %0 = "softmax.attention"(%q, %q, %q, %t, %q) <{masked = 0 : i32, threshold_kind = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0, 0>}> : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, f32, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @generic_kind_without_threshold(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op expects the skip threshold operand, 'threshold_kind' and 'skip_tile' together}}
  %0 = "softmax.attention"(%q, %q, %q, %q) <{masked = 0 : i32, threshold_kind = 1 : i32, skip_tile = array<i64: 1, 8>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 1, 0, 0>}> : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}
