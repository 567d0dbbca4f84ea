// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @phi_nan(%q: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op unified max phi must be finite, got nan}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) outs(%q : tensor<1x2x4x16xf32>) masked(zero) algorithm(unified_max, phi = 0x7FC00000)
  return %0 : tensor<1x2x4x16xf32>
}

// -----

func.func @phi_inf(%q: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op unified max phi must be finite, got -inf}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) outs(%q : tensor<1x2x4x16xf32>) masked(zero) algorithm(unified_max, phi = 0xFF800000)
  return %0 : tensor<1x2x4x16xf32>
}

// -----

func.func @with_threshold(%q: tensor<1x2x4x16xf32>, %t: f32) -> tensor<1x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op cannot combine a unified max with a skip threshold: the skip rule compares each tile with the running max, which a unified max does not keep}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) outs(%q : tensor<1x2x4x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 16]) algorithm(unified_max, phi = 1.0)
  return %0 : tensor<1x2x4x16xf32>
}

// -----

func.func @phi_not_f32(%q: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  // expected-error @+2 {{unexpected decimal integer literal for a floating point value}}
  // expected-note @+1 {{add a trailing dot to make the literal a float}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) outs(%q : tensor<1x2x4x16xf32>) masked(zero) algorithm(unified_max, phi = 1)
  return %0 : tensor<1x2x4x16xf32>
}
