// RUN: softmax-opt %s --transform-interpreter -split-input-file -verify-diagnostics
// What decompose_interface cannot decompose says why.

func.func @auto(%x: tensor<8x100xf32>, %i: tensor<8x100xf32>) -> tensor<8x100xf32> {
  // expected-error @+2 {{'softmax.softmax' op algorithm(auto) must be resolved before decomposition (run softmax-select-algorithm)}}
  // expected-note @+1 {{when applied to this op}}
  %0 = softmax.softmax ins(%x : tensor<8x100xf32>) outs(%i : tensor<8x100xf32>) dimension(1) masked(zero)
  return %0 : tensor<8x100xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{transform.structured.decompose_interface failed to apply}}
    %parts = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @buffers(%x: memref<8x100xf32>, %i: memref<8x100xf32>) {
  // expected-error @+2 {{'softmax.softmax' op decomposition expects tensors; run softmax-decompose before bufferization}}
  // expected-note @+1 {{when applied to this op}}
  softmax.softmax ins(%x : memref<8x100xf32>) outs(%i : memref<8x100xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @+1 {{transform.structured.decompose_interface failed to apply}}
    %parts = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
