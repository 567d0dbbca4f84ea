// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @dimension_out_of_range(%x: tensor<4x8xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'softmax.softmax' op dimension 2 is out of range for an input of rank 2}}
  %0 = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%i : tensor<4x8xf32>) dimension(2) masked(zero)
  return %0 : tensor<4x8xf32>
}

// -----

func.func @init_shape(%x: tensor<4x8xf32>, %i: tensor<4x9xf32>) -> tensor<4x9xf32> {
  // expected-error @+1 {{'softmax.log_softmax' op init shape (4x9) does not match the input shape (4x8)}}
  %0 = softmax.log_softmax ins(%x : tensor<4x8xf32>) outs(%i : tensor<4x9xf32>) dimension(1) masked(zero)
  return %0 : tensor<4x9xf32>
}

// -----

func.func @lse_init_shape(%x: tensor<4x8xf32>, %i: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'softmax.logsumexp' op init shape (8) must be the input shape without dimension 1 (4)}}
  %0 = softmax.logsumexp ins(%x : tensor<4x8xf32>) outs(%i : tensor<8xf32>) dimension(1) masked(zero)
  return %0 : tensor<8xf32>
}

// -----

func.func @acc_type_int(%x: tensor<4x8xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'softmax.softmax' op accumulation type must be f32 or f64, got 'i32'}}
  %0 = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%i : tensor<4x8xf32>) dimension(1) masked(zero) {acc_type = i32}
  return %0 : tensor<4x8xf32>
}

// -----

func.func @acc_type_narrow(%x: tensor<4x8xf64>, %i: tensor<4x8xf64>) -> tensor<4x8xf64> {
  // expected-error @+1 {{'softmax.softmax' op accumulation type 'f32' is narrower than the input element type 'f64'}}
  %0 = softmax.softmax ins(%x : tensor<4x8xf64>) outs(%i : tensor<4x8xf64>) dimension(1) masked(zero) {acc_type = f32}
  return %0 : tensor<4x8xf64>
}

// -----

func.func @integer_input(%x: tensor<4x8xi32>, %i: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'softmax.softmax' op operand #0 must be ranked tensor or memref of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x8xi32>'}}
  %0 = softmax.softmax ins(%x : tensor<4x8xi32>) outs(%i : tensor<4x8xi32>) dimension(1) masked(zero)
  return %0 : tensor<4x8xi32>
}

// -----

func.func @unknown_algorithm(%x: tensor<4x8xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'algorithm' [auto, three_pass, online, exp_pair]}}
  %0 = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%i : tensor<4x8xf32>) dimension(1) masked(zero) algorithm(two_pass)
  return %0 : tensor<4x8xf32>
}

// -----

func.func @missing_masked(%x: tensor<4x8xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = softmax.softmax ins(%x : tensor<4x8xf32>) outs(%i : tensor<4x8xf32>) dimension(1)
  // expected-error @+1 {{expected 'masked'}}
  return %0 : tensor<4x8xf32>
}

// -----

func.func @partial_auto(%x: tensor<4x8xf32>, %m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'softmax.partial' op algorithm must be three_pass, online or exp_pair, not auto}}
  %0, %1, %2 = softmax.partial ins(%x : tensor<4x8xf32>) outs(%m, %l, %l : tensor<4xf32>) dimension(1) algorithm(auto)
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @partial_state_shape(%x: tensor<4x8xf32>, %m: tensor<8xf32>, %l: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  // expected-error @+1 {{'softmax.partial' op state shape (8) must be the input shape without dimension 1 (4)}}
  %0, %1, %2 = softmax.partial ins(%x : tensor<4x8xf32>) outs(%m, %l, %l : tensor<8xf32>) dimension(1) algorithm(online)
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

func.func @partial_narrow_state(%x: tensor<4x8xf64>, %m: tensor<4xf32>, %l: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'softmax.partial' op accumulation type 'f32' is narrower than the input element type 'f64'}}
  %0, %1, %2 = softmax.partial ins(%x : tensor<4x8xf64>) outs(%m, %l, %l : tensor<4xf32>) dimension(1) algorithm(online)
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @partial_bf16_state(%x: tensor<4x8xbf16>, %m: tensor<4xbf16>, %l: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  // expected-error @+1 {{'softmax.partial' op operand #1 must be ranked tensor of 32-bit float or 64-bit float values, but got 'tensor<4xbf16>'}}
  %0, %1, %2 = softmax.partial ins(%x : tensor<4x8xbf16>) outs(%m, %l, %l : tensor<4xbf16>) dimension(1) algorithm(online)
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

func.func @merge_acc_shape(%m: tensor<4xf32>, %o: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{'softmax.merge' op accumulator shape (8x64) must start with the state shape (4)}}
  %0, %1, %2 = softmax.merge (%m, %m), (%m, %m) acc(%o, %o : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>) state(max) : tensor<4xf32>
  return %2 : tensor<8x64xf32>
}

// -----

func.func @merge_acc_types(%m: tensor<4xf32>, %o: tensor<4x64xf32>, %p: tensor<4x32xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'softmax.merge' op expects accumulators and result of one type}}
  %0, %1, %2 = softmax.merge (%m, %m), (%m, %m) acc(%o, %p : tensor<4x64xf32>, tensor<4x32xf32> -> tensor<4x64xf32>) state(max) : tensor<4xf32>
  return %2 : tensor<4x64xf32>
}

// -----

func.func @normalize_init(%x: tensor<4x8xf32>, %m: tensor<4xf32>, %i: tensor<4x7xf32>) -> tensor<4x7xf32> {
  // expected-error @+1 {{'softmax.normalize' op init shape (4x7) does not match the input shape (4x8)}}
  %0 = softmax.normalize ins(%x, %m, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%i : tensor<4x7xf32>) dimension(1) kind(softmax) state(max) masked(zero)
  return %0 : tensor<4x7xf32>
}

// -----

func.func @normalize_state(%x: tensor<4x8xf32>, %m: tensor<8xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'softmax.normalize' op state shape (8) must be the input shape without dimension 1 (4)}}
  %0 = softmax.normalize ins(%x, %m, %m : tensor<4x8xf32>, tensor<8xf32>) outs(%i : tensor<4x8xf32>) dimension(1) kind(softmax) state(max) masked(zero)
  return %0 : tensor<4x8xf32>
}

// -----

func.func @normalize_dimension(%x: tensor<4x8xf32>, %m: tensor<4xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'softmax.normalize' op dimension 5 is out of range for an input of rank 2}}
  %0 = softmax.normalize ins(%x, %m, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%i : tensor<4x8xf32>) dimension(5) kind(softmax) state(max) masked(zero)
  return %0 : tensor<4x8xf32>
}

// -----

func.func @lse_shape(%m: tensor<4xf32>, %i: tensor<5xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'softmax.lse' op init shape (5) does not match the state shape (4)}}
  %0 = softmax.lse ins(%m, %m : tensor<4xf32>) outs(%i : tensor<5xf32>) state(max) masked(zero)
  return %0 : tensor<5xf32>
}

// -----

func.func @mixed_tensor_memref(%x: tensor<4x8xf32>, %i: memref<4x8xf32>) {
  // expected-error @+1 {{'softmax.softmax' op expects input and init to be both tensors or both memrefs}}
  softmax.softmax ins(%x : tensor<4x8xf32>) outs(%i : memref<4x8xf32>) dimension(1) masked(zero)
  return
}

// -----

func.func @memref_result(%x: memref<4x8xf32>, %i: memref<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'softmax.softmax' op expects one result of the init type on tensors and none on memrefs}}
  %0 = "softmax.softmax"(%x, %i) <{dimension = 1 : i64, masked = 0 : i32}> : (memref<4x8xf32>, memref<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @merge_one_acc(%m: tensor<4xf32>, %o: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'softmax.merge' op expects both accumulators or neither}}
  %0:2 = "softmax.merge"(%m, %m, %m, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0>, state = 0 : i32}> : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}
