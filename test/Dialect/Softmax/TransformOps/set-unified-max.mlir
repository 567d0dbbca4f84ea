// RUN: softmax-opt %s --transform-interpreter | FileCheck %s

// transform.softmax.set_unified_max gives the matched attention ops a
// unified max; the handle stays valid (a second one replaces phi).
// CHECK-LABEL: func.func @decode
// CHECK:       softmax.attention {{.*}} masked(zero) algorithm(unified_max, phi = 4.000000e+00)
// CHECK:       softmax.attention {{.*}} masked(zero) causal algorithm(unified_max, phi = 4.000000e+00)
func.func @decode(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x64x16xf32>) -> (tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>) {
  %a = softmax.attention ins(%q, %k, %k : tensor<1x4x1x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>)
      outs(%q : tensor<1x4x1x16xf32>) masked(zero)
  %b = softmax.attention ins(%q, %k, %k : tensor<1x4x1x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>)
      outs(%q : tensor<1x4x1x16xf32>) masked(zero) causal
  return %a, %b : tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["softmax.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.softmax.set_unified_max %ops {phi = 1.0 : f32} : !transform.any_op
    transform.softmax.set_unified_max %ops {phi = 4.0 : f32} : !transform.any_op
    transform.yield
  }
}
