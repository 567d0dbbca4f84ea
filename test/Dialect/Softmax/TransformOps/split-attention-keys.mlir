// RUN: softmax-opt %s --transform-interpreter -split-input-file | FileCheck %s
// RUN: softmax-opt %s --transform-interpreter -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: softmax-opt %s --transform-interpreter --canonicalize -split-input-file --softmax-to-cpu | FileCheck %s --check-prefix=CPU

// transform.softmax.split_attention_keys splits as the pass does and
// returns the partial attentions, which map_to_cpu could take next; here
// the handle's size is printed to show it holds all three.
// REMARK: remark: parts: 3 : i64
// CHECK-LABEL: func.func @split
// CHECK-COUNT-3: = softmax.attention ins
// CHECK-NOT: = softmax.attention
// CHECK: softmax.merge
// CHECK-NOT: = softmax.attention
// CHECK: return
// CPU-LABEL: llvm.func @split
// CPU-NOT: = softmax.attention
// CPU-NOT: softmax.merge
func.func @split(%q: tensor<2x4x2x32xf32>, %k: tensor<2x2x300x32xf32>, %v: tensor<2x2x300x32xf32>, %o: tensor<2x4x2x32xf32>) -> tensor<2x4x2x32xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<2x4x2x32xf32>, tensor<2x2x300x32xf32>, tensor<2x2x300x32xf32>) outs(%o : tensor<2x4x2x32xf32>) masked(zero) causal
  return %r : tensor<2x4x2x32xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %att = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %parts = transform.softmax.split_attention_keys %att {splits = 3} : (!transform.any_op) -> !transform.any_op
    %n = transform.num_associations %parts : (!transform.any_op) -> !transform.param<i64>
    transform.debug.emit_param_as_remark %n, "parts:" : !transform.param<i64>
    transform.yield
  }
}

// -----

// Without `splits`, the cost model: 8 blocks on 16 units of at least 64
// keys each, 2 splits (16 of 16 units).
// CHECK-LABEL: func.func @model
// CHECK-COUNT-2: = softmax.attention ins
// CHECK-NOT: = softmax.attention
// CHECK: return
func.func @model(%q: tensor<1x8x1x32xf32>, %k: tensor<1x8x512x32xf32>, %v: tensor<1x8x512x32xf32>, %o: tensor<1x8x1x32xf32>) -> tensor<1x8x1x32xf32> {
  %r = softmax.attention ins(%q, %k, %v : tensor<1x8x1x32xf32>, tensor<1x8x512x32xf32>, tensor<1x8x512x32xf32>) outs(%o : tensor<1x8x1x32xf32>) masked(zero)
  return %r : tensor<1x8x1x32xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %att = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %parts = transform.softmax.split_attention_keys %att {parallel_units = 16, min_keys_per_split = 64} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
