// Generic-form ops whose operandSegmentSizes add up but give a required
// operand group 0 or 2 values: a diagnostic, before the generated verifier
// and the op's accessors (which crashed on them).
// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @merge_two_in_required(%m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'softmax.merge' op operand group 0 needs exactly one value, not 2 (operandSegmentSizes)}}
  %a:2 = "softmax.merge"(%m, %l, %m, %l) <{operandSegmentSizes = array<i32: 2, 1, 1, 0, 0, 0>, state = 0 : i32}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a#0, %a#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @merge_two_in_optional(%m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'softmax.merge' op operand group 4 needs at most one value, not 2 (operandSegmentSizes)}}
  %a:2 = "softmax.merge"(%m, %l, %m, %l, %m, %l) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 2, 0>, state = 0 : i32}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a#0, %a#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @attention_no_output(%q: tensor<1x1x4x16xf16>, %k: tensor<1x1x8x16xf16>, %v: tensor<1x1x8x16xf16>, %o: tensor<1x1x4x16xf16>) -> tensor<1x1x4x16xf16> {
  // expected-error @+1 {{'softmax.attention' op operand group 7 needs exactly one value, not 0 (operandSegmentSizes)}}
  %r = "softmax.attention"(%q, %k, %v, %o) <{masked = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>}> : (tensor<1x1x4x16xf16>, tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1x1x4x16xf16>) -> tensor<1x1x4x16xf16>
  return %r : tensor<1x1x4x16xf16>
}
