// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @rank(%h: tensor<8x4x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op needs hidden [N, D], classifier [V, D] and targets [N], not ranks 3, 2 and 1}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x4x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return
}

// -----

func.func @features(%h: tensor<8x64xbf16>, %w: tensor<100x32xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op hidden has 64 features and classifier 32}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x32xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return
}

// -----

func.func @tokens(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<7xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op hidden has 8 tokens and targets 7}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<7xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return
}

// -----

func.func @mixed(%h: tensor<8x64xbf16>, %w: tensor<100x64xf32>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op hidden ('bf16') and classifier ('f32') need one element type}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xf32>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return
}

// -----

func.func @bias(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %b: tensor<99xbf16>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op bias must be [V] with the classifier's 100 classes, not 'tensor<99xbf16>'}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) bias(%b : tensor<99xbf16>) outs(%l0 : tensor<f32>) reduction(mean)
  return
}

// -----

func.func @reduced_shape(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %l0: tensor<8xf32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op reduction(mean) writes one loss, a rank-0 tensor, not 'tensor<8xf32>'}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<8xf32>) reduction(mean)
  return
}

// -----

func.func @per_token_shape(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op reduction(none) writes one loss per token, [N], not 'tensor<f32>'}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(none)
  return
}

// -----

func.func @lse_shape(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>, %s0: tensor<4xf32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op lse must be [N], one per token, not 'tensor<4xf32>'}}
  %l, %s = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) lse(%s0 : tensor<4xf32>) reduction(sum)
  return
}

// -----

func.func @ignore_i32(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi32>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op ignore_index 4294967296 does not fit the i32 targets}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi32>) outs(%l0 : tensor<f32>) reduction(mean) ignore_index(4294967296)
  return
}

// -----

func.func @softcap(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op softcap must be positive and finite, not -3}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean) softcap(-3.0)
  return
}

// -----

func.func @z_loss(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op z_loss must be non-negative and finite, not -1}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean) z_loss(-1.0)
  return
}

// -----

func.func @vocab_tile(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op vocab_tile must be positive, not 0}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean) vocab_tile(0)
  return
}

// -----

func.func @element_type(%h: tensor<8x64xf64>, %w: tensor<100x64xf64>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op operand #0 must be ranked tensor or memref of f16, bf16 or f32, but got 'tensor<8x64xf64>'}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xf64>, tensor<100x64xf64>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return
}

// -----

func.func @grad_loss_shape(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<8xf32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op reduction(mean) takes one loss gradient, a rank-0 tensor, not 'tensor<8xf32>'}}
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<8xf32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) reduction(mean)
  return
}

// -----

func.func @grad_classifier_shape(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<64x100xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op grad_classifier must have classifier's shape 'tensor<100x64xbf16>', not 'tensor<64x100xbf16>'}}
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<64x100xbf16>) reduction(mean)
  return
}

// -----

func.func @grad_bias_without_bias(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>, %gb0: tensor<100xf32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op has a grad_bias init without a bias}}
  %gh, %gw, %gb = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) grad_bias(%gb0 : tensor<100xf32>) reduction(mean)
  return
}

// -----

func.func @grad_filter(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op filter must be non-negative and finite, not -1}}
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) reduction(mean) filter(-1.0)
  return
}

// -----

func.func @grad_counts(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>, %n0: tensor<4xi64>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op filter_counts must be tensor<2xi64> or tensor<3xi64>, not 'tensor<4xi64>'}}
  %gh, %gw, %n = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) filter_counts(%n0 : tensor<4xi64>) reduction(mean)
  return
}

// -----

func.func @class_max_groups(%h: tensor<8x64xbf16>, %w: tensor<1000x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>, %cm0: tensor<8x3xf32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op class_max must be [N, ceil(V / 256)], a token's largest logit per 256 classes, not 'tensor<8x3xf32>'}}
  %l, %cm = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<1000x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) class_max(%cm0 : tensor<8x3xf32>) reduction(mean)
  return
}

// -----

func.func @class_max_vocab_tile(%h: tensor<8x64xbf16>, %w: tensor<1000x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>, %cm0: tensor<8x4xf32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op class_max needs vocab_tile to be a multiple of 256, not 100}}
  %l, %cm = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<8x64xbf16>, tensor<1000x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) class_max(%cm0 : tensor<8x4xf32>) reduction(mean) vocab_tile(100)
  return
}

// -----

func.func @grad_class_max_tokens(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %cm: tensor<7x1xf32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op class_max must be [N, ceil(V / 256)], a token's largest logit per 256 classes, not 'tensor<7x1xf32>'}}
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) class_max(%cm : tensor<7x1xf32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) reduction(mean)
  return
}

// -----

func.func @grad_token_tile(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op token_tile must be positive, not 0}}
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) reduction(mean) token_tile(0)
  return
}

// -----

func.func @mixed(%h: memref<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %l0: tensor<f32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op operands must be all tensors or all memrefs}}
  %l = softmax.linear_cross_entropy ins(%h, %w, %t : memref<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>) outs(%l0 : tensor<f32>) reduction(mean)
  return
}

// -----

func.func @memref_loss_shape(%h: memref<8x64xbf16>, %w: memref<100x64xbf16>, %t: memref<8xi64>, %l: memref<4xf32>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy' op reduction(none) writes one loss per token, [N], not 'memref<4xf32>'}}
  softmax.linear_cross_entropy ins(%h, %w, %t : memref<8x64xbf16>, memref<100x64xbf16>, memref<8xi64>) outs(%l : memref<4xf32>) reduction(none)
  return
}

// -----

func.func @grad_mixed(%h: memref<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op operands must be all tensors or all memrefs}}
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : memref<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) reduction(mean)
  return
}

// -----

func.func @grad_vocab_tile(%h: tensor<8x64xbf16>, %w: tensor<100x64xbf16>, %t: tensor<8xi64>, %lse: tensor<8xf32>, %dl: tensor<f32>, %gh0: tensor<8x64xbf16>, %gw0: tensor<100x64xbf16>) {
  // expected-error @+1 {{'softmax.linear_cross_entropy_grad' op vocab_tile must be positive, not 0}}
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<8x64xbf16>, tensor<100x64xbf16>, tensor<8xi64>, tensor<8xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<8x64xbf16>, tensor<100x64xbf16>) reduction(mean) vocab_tile(0)
  return
}
