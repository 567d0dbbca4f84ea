// RUN: softmax-opt %s --transform-interpreter -split-input-file -verify-diagnostics | FileCheck %s
// transform.softmax.select_algorithm runs the cost model of
// softmax-select-algorithm on the ops of its handle, and only on them.

// CPU model: a row of 4 KiB stays in L2 (three_pass); with l2_bytes = 4096
// it is longer than half of L2 (exp_pair). An op that names its algorithm
// keeps it; an op outside the handle stays auto.
// CHECK-LABEL: func @cpu
// CHECK: softmax.softmax {{.*}} masked(zero) algorithm(three_pass) {short}
// CHECK: softmax.log_softmax {{.*}} masked(zero) algorithm(exp_pair) {small_l2}
// CHECK: softmax.logsumexp {{.*}} masked(zero) algorithm(online) {named}
// CHECK: softmax.softmax {{.*}} masked(zero) {untouched}
func.func @cpu(%x: tensor<8x1024xf32>, %i: tensor<8x1024xf32>, %s: tensor<8xf32>)
    -> (tensor<8x1024xf32>, tensor<8x1024xf32>, tensor<8xf32>, tensor<8x1024xf32>) {
  %0 = softmax.softmax ins(%x : tensor<8x1024xf32>) outs(%i : tensor<8x1024xf32>) dimension(1) masked(zero) {short}
  %1 = softmax.log_softmax ins(%x : tensor<8x1024xf32>) outs(%i : tensor<8x1024xf32>) dimension(1) masked(zero) {small_l2}
  %2 = softmax.logsumexp ins(%x : tensor<8x1024xf32>) outs(%s : tensor<8xf32>) dimension(1) masked(zero) algorithm(online) {named}
  %3 = softmax.softmax ins(%x : tensor<8x1024xf32>) outs(%i : tensor<8x1024xf32>) dimension(1) masked(zero) {untouched}
  return %0, %1, %2, %3 : tensor<8x1024xf32>, tensor<8x1024xf32>, tensor<8xf32>, tensor<8x1024xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %short = transform.structured.match attributes{short} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %short {target = "cpu"} : !transform.any_op
    %small = transform.structured.match attributes{small_l2} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %small {l2_bytes = 4096} : !transform.any_op
    %named = transform.structured.match attributes{named} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %named : !transform.any_op
    transform.yield
  }
}

// -----

// GPU model: online; force replaces every algorithm, a named one included.
// CHECK-LABEL: func @gpu_and_force
// CHECK: softmax.softmax {{.*}} algorithm(online) {gpu}
// CHECK: softmax.softmax {{.*}} algorithm(exp_pair) {forced}
func.func @gpu_and_force(%x: tensor<8x1024xf32>, %i: tensor<8x1024xf32>) -> (tensor<8x1024xf32>, tensor<8x1024xf32>) {
  %0 = softmax.softmax ins(%x : tensor<8x1024xf32>) outs(%i : tensor<8x1024xf32>) dimension(1) masked(zero) {gpu}
  // expected-remark @below {{still here}}
  %1 = softmax.softmax ins(%x : tensor<8x1024xf32>) outs(%i : tensor<8x1024xf32>) dimension(1) masked(zero) algorithm(three_pass) {forced}
  return %0, %1 : tensor<8x1024xf32>, tensor<8x1024xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %gpu = transform.structured.match attributes{gpu} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %gpu {target = "gpu"} : !transform.any_op
    %forced = transform.structured.match attributes{forced} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.select_algorithm %forced {force = "exp_pair"} : !transform.any_op
    // The handles stay valid: the ops are changed in place.
    transform.debug.emit_remark_at %forced, "still here" : !transform.any_op
    transform.yield
  }
}
