// RUN: softmax-opt %s --transform-interpreter -split-input-file -verify-diagnostics

func.func @not_attention(%x: tensor<4x8xf32>, %e: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-note @+1 {{target op}}
  %y = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) dimension(1) masked(zero)
  return %y : tensor<4x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{expects softmax.attention ops, not softmax.softmax}}
    transform.softmax.set_unified_max %op {phi = 1.0 : f32} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @threshold(%q: tensor<1x1x4x16xf32>, %t: f32) -> tensor<1x1x4x16xf32> {
  // expected-note @+1 {{target op}}
  %r = softmax.attention ins(%q, %q, %q : tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) outs(%q : tensor<1x1x4x16xf32>) masked(zero) skip(lambda %t : f32, tile [1, 16])
  return %r : tensor<1x1x4x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{has a skip threshold, whose rule compares each tile with the running max}}
    transform.softmax.set_unified_max %op {phi = 1.0 : f32} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @nan(%q: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  // expected-note @+1 {{target op}}
  %r = softmax.attention ins(%q, %q, %q : tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) outs(%q : tensor<1x1x4x16xf32>) masked(zero)
  return %r : tensor<1x1x4x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{a unified max needs a finite phi}}
    transform.softmax.set_unified_max %op {phi = 0x7FC00000 : f32} : !transform.any_op
    transform.yield
  }
}
