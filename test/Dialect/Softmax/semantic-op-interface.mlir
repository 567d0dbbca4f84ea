// RUN: softmax-opt %s --test-softmax-semantic-interface -verify-diagnostics -split-input-file
// SemanticOpInterface's answers on every semantic op class.

func.func @softmax(%x: tensor<8x1000xbf16>, %i: tensor<8x1000xbf16>) -> tensor<8x1000xbf16> {
  // expected-remark @+1 {{inputs (0) destinations (1) reduces #0 dimension 1 length 1000 algorithm exp_pair (selectable) state exponent normalize softmax masked zero acc 'f32'}}
  %0 = softmax.softmax ins(%x : tensor<8x1000xbf16>) outs(%i : tensor<8x1000xbf16>) dimension(1) masked(zero) algorithm(exp_pair)
  return %0 : tensor<8x1000xbf16>
}

// -----

// auto has no state kind yet; an explicit acc_type is the accumulator.
func.func @log_softmax(%x: memref<?x16xf32>, %i: memref<?x16xf32>) {
  // expected-remark @+1 {{inputs (0) destinations (1) reduces #0 dimension 0 length ? algorithm auto (selectable) state none normalize log_softmax masked nan acc 'f64'}}
  softmax.log_softmax ins(%x : memref<?x16xf32>) outs(%i : memref<?x16xf32>) dimension(0) masked(nan) {acc_type = f64}
  return
}

// -----

func.func @logsumexp(%x: tensor<4x128xf64>, %i: tensor<4xf64>) -> tensor<4xf64> {
  // expected-remark @+1 {{inputs (0) destinations (1) reduces #0 dimension 1 length 128 algorithm three_pass (selectable) state max normalize none masked zero acc 'f64'}}
  %0 = softmax.logsumexp ins(%x : tensor<4x128xf64>) outs(%i : tensor<4xf64>) dimension(1) masked(zero) algorithm(three_pass)
  return %0 : tensor<4xf64>
}

// -----

// Attention reads query, key, value and mask, writes output and lse; its
// row is the keys (dimension 2 of key); always online.
func.func @attention(%q: tensor<1x2x4x16xf16>, %k: tensor<1x2x24x16xf16>, %v: tensor<1x2x24x16xf16>, %m: tensor<1x1x4x24xi1>, %o: tensor<1x2x4x16xf16>, %l: tensor<1x2x4xf32>) -> (tensor<1x2x4x16xf16>, tensor<1x2x4xf32>) {
  // expected-remark @+1 {{inputs (0, 1, 2, 3) destinations (4, 5) reduces #1 dimension 2 length 24 algorithm online (fixed) state max normalize softmax masked nan acc 'f32'}}
  %0, %1 = softmax.attention ins(%q, %k, %v, %m : tensor<1x2x4x16xf16>, tensor<1x2x24x16xf16>, tensor<1x2x24x16xf16>, tensor<1x1x4x24xi1>) outs(%o, %l : tensor<1x2x4x16xf16>, tensor<1x2x4xf32>) masked(nan)
  return %0, %1 : tensor<1x2x4x16xf16>, tensor<1x2x4xf32>
}

// -----

// Without the optional operands.
func.func @attention_plain(%q: memref<1x1x4x16xf32>, %k: memref<1x1x8x16xf32>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x4x16xf32>) {
  // expected-remark @+1 {{inputs (0, 1, 2) destinations (3) reduces #1 dimension 2 length 8 algorithm online (fixed) state max normalize softmax masked zero acc 'f32'}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x16xf32>, memref<1x1x8x16xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero)
  return
}
