// RUN: softmax-opt %s --transform-interpreter -split-input-file | FileCheck %s
// The pattern descriptors inside transform.apply_patterns: the patterns of
// softmax-raise, and the two steps of softmax-decompose.

// raise: linalg.softmax and a decomposed log_softmax become semantic ops;
// only in the function the handle points to.
// CHECK-LABEL: func @raise
// CHECK: softmax.softmax ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xf32>) dimension(1) masked(nan)
// CHECK-NOT: linalg.softmax
// CHECK-LABEL: func @not_targeted
// CHECK: linalg.softmax
func.func @raise(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @not_targeted(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} attributes{sym_name = "raise"} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.softmax.raise
    } : !transform.any_op
    transform.yield
  }
}

// -----

// decompose: semantic ops on tensors become state ops (an auto op gets the
// CPU model's algorithm first); ops on memrefs are not matched.
// CHECK-LABEL: func @decompose
// CHECK: %[[M:.*]], %[[L:.*]], %{{.*}} = softmax.partial ins(%{{.*}} : tensor<4x128xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>) dimension(1) algorithm(online)
// CHECK: softmax.normalize ins(%{{.*}}, %[[M]], %[[L]] : tensor<4x128xf32>, tensor<4xf32>) {{.*}} kind(softmax)
// CHECK: softmax.partial {{.*}} algorithm(three_pass)
// CHECK: softmax.lse
// CHECK: softmax.softmax ins(%{{.*}} : memref<4x128xf32>)
func.func @decompose(%x: tensor<4x128xf32>, %i: tensor<4x128xf32>, %s: tensor<4xf32>,
                     %b: memref<4x128xf32>, %c: memref<4x128xf32>) -> (tensor<4x128xf32>, tensor<4xf32>) {
  %0 = softmax.softmax ins(%x : tensor<4x128xf32>) outs(%i : tensor<4x128xf32>) dimension(1) masked(zero) algorithm(online)
  %1 = softmax.logsumexp ins(%x : tensor<4x128xf32>) outs(%s : tensor<4xf32>) dimension(1) masked(zero)
  softmax.softmax ins(%b : memref<4x128xf32>) outs(%c : memref<4x128xf32>) dimension(1) masked(zero) algorithm(online)
  return %0, %1 : tensor<4x128xf32>, tensor<4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.softmax.decompose
    } : !transform.any_op
    transform.yield
  }
}

// -----

// decompose and state_to_linalg together: no softmax op is left, only
// linalg over arith and math.
// CHECK-LABEL: func @to_linalg
// CHECK-NOT: softmax.
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK-NOT: softmax.
// CHECK: return
func.func @to_linalg(%x: tensor<4x128xf32>, %i: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %0 = softmax.log_softmax ins(%x : tensor<4x128xf32>) outs(%i : tensor<4x128xf32>) dimension(1) masked(zero) algorithm(three_pass)
  return %0 : tensor<4x128xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.softmax.decompose
      transform.apply_patterns.softmax.state_to_linalg
    } : !transform.any_op
    transform.yield
  }
}

// -----

// decompose: the fused linear cross-entropy becomes its loop over
// vocabulary tiles folded by softmax.partial, then softmax.lse.
// CHECK-LABEL: func @cross_entropy
// CHECK: scf.for %{{.*}} = %c0 to %c300 step %c64
// CHECK:   softmax.partial ins(%{{.*}} : tensor<{{.*}}xf32>) {{.*}} dimension(1) algorithm(online)
// CHECK: softmax.lse
// CHECK-NOT: softmax.linear_cross_entropy
func.func @cross_entropy(%h: tensor<4x16xf32>, %w: tensor<300x16xf32>, %t: tensor<4xi32>, %l0: tensor<4xf32>) -> tensor<4xf32> {
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<4x16xf32>, tensor<300x16xf32>, tensor<4xi32>) outs(%l0 : tensor<4xf32>) reduction(none) vocab_tile(64)
  return %l : tensor<4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.softmax.decompose
    } : !transform.any_op
    transform.yield
  }
}
