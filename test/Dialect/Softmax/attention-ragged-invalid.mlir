// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @lengths_rank(%q: tensor<2x2x4x16xf32>, %len: tensor<2x1xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op key_lengths must have rank 1 ([B]), got rank 2}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) key_lengths(%len : tensor<2x1xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @lengths_batch(%q: tensor<2x2x4x16xf32>, %len: tensor<3xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op key_lengths dimension 0 (B) must be 2 to match the query, got 3}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) key_lengths(%len : tensor<3xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @lengths_i64(%q: tensor<2x2x4x16xf32>, %len: tensor<2xi64>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{operand #3 must be key count per batch entry (i32 [B])}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) key_lengths(%len : tensor<2xi64>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @lengths_memref_on_tensors(%q: tensor<2x2x4x16xf32>, %len: memref<2xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op expects all operands to be tensors or all to be memrefs}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) key_lengths(%len : memref<2xi32>)
  return %0 : tensor<2x2x4x16xf32>
}
