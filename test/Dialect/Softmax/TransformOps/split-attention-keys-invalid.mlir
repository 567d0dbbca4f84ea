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
    %parts = transform.softmax.split_attention_keys %op {splits = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @window(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x64x16xf32>, %v: tensor<1x1x64x16xf32>, %o: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op split along the keys of a windowed attention is not supported: a split's window would depend on its keys' global positions}}
  %r = softmax.attention ins(%q, %k, %v : tensor<1x1x4x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) outs(%o : tensor<1x1x4x16xf32>) masked(zero) window(8)
  return %r : tensor<1x1x4x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %parts = transform.softmax.split_attention_keys %op {splits = 2} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{'transform.softmax.split_attention_keys' op attribute 'splits' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    %parts = transform.softmax.split_attention_keys %op {splits = 0} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
