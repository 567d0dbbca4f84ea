// RUN: softmax-opt %s --transform-interpreter --canonicalize -split-input-file | FileCheck %s
// The decomposition and the tiling are reachable from upstream transform ops
// through AggregatedOpInterface and TilingInterface.

// CHECK-LABEL: func @decompose_then_tile
// CHECK: %[[M0:.*]] = linalg.fill
// CHECK: %[[L0:.*]] = linalg.fill
// CHECK: %[[S:.*]]:3 = scf.for {{.*}} iter_args(%[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]], %[[C:.*]] = %{{.*}})
// CHECK:   softmax.partial ins(%{{.*}} : tensor<8x?xf32>) outs(%[[M]], %[[L]], %[[C]] : tensor<8xf32>) dimension(1) algorithm(exp_pair)
// CHECK: softmax.normalize ins(%{{.*}}, %[[S]]#0, %[[S]]#1 : tensor<8x100xf32>, tensor<8xf32>) {{.*}} kind(log_softmax) state(exponent) masked(zero)
func.func @decompose_then_tile(%x: tensor<8x100xf32>, %i: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %0 = softmax.log_softmax ins(%x : tensor<8x100xf32>) outs(%i : tensor<8x100xf32>) dimension(1) masked(zero) algorithm(exp_pair)
  return %0 : tensor<8x100xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["softmax.log_softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %parts = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op
    %partial = transform.structured.match ops{["softmax.partial"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_for %partial tile_sizes [0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
