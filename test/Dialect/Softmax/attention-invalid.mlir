// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @mixed_tensor_memref(%q: tensor<1x2x8x16xf32>, %o: memref<1x2x8x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op expects all operands to be tensors or all to be memrefs}}
  softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : memref<1x2x8x16xf32>) masked(zero)
  return
}

// -----

func.func @mixed_lse(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %l: memref<1x2x8xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op expects all operands to be tensors or all to be memrefs}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o, %l : tensor<1x2x8x16xf32>, memref<1x2x8xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @tensor_results(%q: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>, %l: tensor<1x2x8xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %0 = "softmax.attention"(%q, %q, %q, %o, %l) <{masked = 0 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 1, 1, 0>}> : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @query_rank(%q: tensor<2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op query must have rank 4 ([B, H, Nq, D]), got rank 3}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @key_rank(%q: tensor<1x2x8x16xf32>, %k: tensor<1x1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op key must have rank 4 ([B, Hkv, Nk, D]), got rank 5}}
  %0 = softmax.attention ins(%q, %k, %q : tensor<1x2x8x16xf32>, tensor<1x1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @value_rank(%q: tensor<1x2x8x16xf32>, %v: tensor<8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op value must have rank 4 ([B, Hkv, Nk, Dv]), got rank 2}}
  %0 = softmax.attention ins(%q, %q, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @output_rank(%q: tensor<1x2x8x16xf32>, %o: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op output must have rank 4 ([B, H, Nq, Dv]), got rank 3}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<2x8x16xf32>) masked(zero)
  return %0 : tensor<2x8x16xf32>
}

// -----

func.func @lse_rank(%q: tensor<1x2x8x16xf32>, %l: tensor<1x2x8x1xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op lse must have rank 3 ([B, H, Nq]), got rank 4}}
  %0:2 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q, %l : tensor<1x2x8x16xf32>, tensor<1x2x8x1xf32>) masked(zero)
  return %0#0 : tensor<1x2x8x16xf32>
}

// -----

func.func @mask_rank(%q: tensor<1x2x8x16xf32>, %m: tensor<8x8xi1>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op mask must have rank 4 ([B or 1, H or 1, Nq, Nk]), got rank 2}}
  %0 = softmax.attention ins(%q, %q, %q, %m : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<8x8xi1>) outs(%q : tensor<1x2x8x16xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @key_batch(%q: tensor<2x4x8x16xf32>, %k: tensor<3x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op key dimension 0 (B) must be 2 to match the query, got 3}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<2x4x8x16xf32>, tensor<3x4x8x16xf32>, tensor<3x4x8x16xf32>) outs(%q : tensor<2x4x8x16xf32>) masked(zero)
  return %0 : tensor<2x4x8x16xf32>
}

// -----

func.func @key_head_dim(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x32xf32>, %v: tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op key dimension 3 (D) must be 16 to match the query, got 32}}
  %0 = softmax.attention ins(%q, %k, %v : tensor<2x4x8x16xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x16xf32>) outs(%q : tensor<2x4x8x16xf32>) masked(zero)
  return %0 : tensor<2x4x8x16xf32>
}

// -----

// The reference for a size is its first static occurrence, here the key's.
func.func @value_batch_vs_key(%q: tensor<?x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<3x4x8x16xf32>, %o: tensor<?x4x8x16xf32>) -> tensor<?x4x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op value dimension 0 (B) must be 2 to match the key, got 3}}
  %0 = softmax.attention ins(%q, %k, %v : tensor<?x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<3x4x8x16xf32>) outs(%o : tensor<?x4x8x16xf32>) masked(zero)
  return %0 : tensor<?x4x8x16xf32>
}

// -----

func.func @value_kv_heads(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x4x32x64xf32>, %o: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op value dimension 1 (Hkv) must be 2 to match the key, got 4}}
  %0 = softmax.attention ins(%q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x4x32x64xf32>) outs(%o : tensor<1x8x16x64xf32>) masked(zero)
  return %0 : tensor<1x8x16x64xf32>
}

// -----

func.func @value_keys(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x31x64xf32>, %o: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op value dimension 2 (Nk) must be 32 to match the key, got 31}}
  %0 = softmax.attention ins(%q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x31x64xf32>) outs(%o : tensor<1x8x16x64xf32>) masked(zero)
  return %0 : tensor<1x8x16x64xf32>
}

// -----

func.func @output_heads(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %o: tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op output dimension 1 (H) must be 8 to match the query, got 2}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32>) outs(%o : tensor<1x2x16x64xf32>) masked(zero)
  return %0 : tensor<1x2x16x64xf32>
}

// -----

func.func @output_queries(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %o: tensor<1x8x32x64xf32>) -> tensor<1x8x32x64xf32> {
  // expected-error @+1 {{'softmax.attention' op output dimension 2 (Nq) must be 16 to match the query, got 32}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32>) outs(%o : tensor<1x8x32x64xf32>) masked(zero)
  return %0 : tensor<1x8x32x64xf32>
}

// -----

func.func @output_value_dim(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x128xf32>, %o: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op output dimension 3 (Dv) must be 128 to match the value, got 64}}
  %0 = softmax.attention ins(%q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x128xf32>) outs(%o : tensor<1x8x16x64xf32>) masked(zero)
  return %0 : tensor<1x8x16x64xf32>
}

// -----

func.func @output_batch(%q: tensor<2x8x16x64xf32>, %o: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op output dimension 0 (B) must be 2 to match the query, got 1}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) outs(%o : tensor<1x8x16x64xf32>) masked(zero)
  return %0 : tensor<1x8x16x64xf32>
}

// -----

func.func @lse_batch(%q: tensor<2x8x16x64xf32>, %l: tensor<1x8x16xf32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op lse dimension 0 (B) must be 2 to match the query, got 1}}
  %0:2 = softmax.attention ins(%q, %q, %q : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) outs(%q, %l : tensor<2x8x16x64xf32>, tensor<1x8x16xf32>) masked(zero)
  return %0#0 : tensor<2x8x16x64xf32>
}

// -----

func.func @lse_heads(%q: tensor<2x8x16x64xf32>, %l: tensor<2x4x16xf32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op lse dimension 1 (H) must be 8 to match the query, got 4}}
  %0:2 = softmax.attention ins(%q, %q, %q : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) outs(%q, %l : tensor<2x8x16x64xf32>, tensor<2x4x16xf32>) masked(zero)
  return %0#0 : tensor<2x8x16x64xf32>
}

// -----

func.func @lse_queries(%q: tensor<2x8x16x64xf32>, %l: tensor<2x8x64xf32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op lse dimension 2 (Nq) must be 16 to match the query, got 64}}
  %0:2 = softmax.attention ins(%q, %q, %q : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) outs(%q, %l : tensor<2x8x16x64xf32>, tensor<2x8x64xf32>) masked(zero)
  return %0#0 : tensor<2x8x16x64xf32>
}

// -----

func.func @mask_batch(%q: tensor<2x8x16x64xf32>, %m: tensor<3x1x16x16xi1>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op mask dimension 0 (B) must be 1 or 2 to match the query, got 3}}
  %0 = softmax.attention ins(%q, %q, %q, %m : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<3x1x16x16xi1>) outs(%q : tensor<2x8x16x64xf32>) masked(zero)
  return %0 : tensor<2x8x16x64xf32>
}

// -----

// The mask has one slice per query head, not per key/value head.
func.func @mask_heads(%q: tensor<2x8x16x64xf32>, %k: tensor<2x2x16x64xf32>, %m: tensor<1x2x16x16xi1>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op mask dimension 1 (H) must be 1 or 8 to match the query, got 2}}
  %0 = softmax.attention ins(%q, %k, %k, %m : tensor<2x8x16x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>, tensor<1x2x16x16xi1>) outs(%q : tensor<2x8x16x64xf32>) masked(zero)
  return %0 : tensor<2x8x16x64xf32>
}

// -----

func.func @mask_queries(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x32x64xf32>, %m: tensor<1x1x32x32xf32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op mask dimension 2 (Nq) must be 16 to match the query, got 32}}
  %0 = softmax.attention ins(%q, %k, %k, %m : tensor<2x8x16x64xf32>, tensor<2x8x32x64xf32>, tensor<2x8x32x64xf32>, tensor<1x1x32x32xf32>) outs(%q : tensor<2x8x16x64xf32>) masked(zero)
  return %0 : tensor<2x8x16x64xf32>
}

// -----

func.func @mask_keys(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x32x64xf32>, %m: tensor<1x1x16x16xf32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op mask dimension 3 (Nk) must be 32 to match the key, got 16}}
  %0 = softmax.attention ins(%q, %k, %k, %m : tensor<2x8x16x64xf32>, tensor<2x8x32x64xf32>, tensor<2x8x32x64xf32>, tensor<1x1x16x16xf32>) outs(%q : tensor<2x8x16x64xf32>) masked(zero)
  return %0 : tensor<2x8x16x64xf32>
}

// -----

func.func @heads_not_multiple(%q: tensor<1x6x16x64xf32>, %k: tensor<1x4x16x64xf32>) -> tensor<1x6x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op query heads (H = 6) must be a multiple of key/value heads (Hkv = 4)}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<1x6x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>) outs(%q : tensor<1x6x16x64xf32>) masked(zero)
  return %0 : tensor<1x6x16x64xf32>
}

// -----

func.func @more_kv_heads(%q: tensor<1x2x16x64xf32>, %k: tensor<1x4x16x64xf32>) -> tensor<1x2x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op query heads (H = 2) must be a multiple of key/value heads (Hkv = 4)}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<1x2x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>) outs(%q : tensor<1x2x16x64xf32>) masked(zero)
  return %0 : tensor<1x2x16x64xf32>
}

// -----

func.func @no_kv_heads(%q: tensor<1x2x16x64xf32>, %k: tensor<1x0x16x64xf32>) -> tensor<1x2x16x64xf32> {
  // expected-error @+1 {{'softmax.attention' op query heads (H = 2) must be a multiple of key/value heads (Hkv = 0)}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<1x2x16x64xf32>, tensor<1x0x16x64xf32>, tensor<1x0x16x64xf32>) outs(%q : tensor<1x2x16x64xf32>) masked(zero)
  return %0 : tensor<1x2x16x64xf32>
}

// -----

func.func @key_type(%q: tensor<1x2x8x16xbf16>, %k: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xbf16> {
  // expected-error @+1 {{'softmax.attention' op key element type 'f16' must be the query element type 'bf16'}}
  %0 = softmax.attention ins(%q, %k, %q : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xbf16>) outs(%q : tensor<1x2x8x16xbf16>) masked(zero)
  return %0 : tensor<1x2x8x16xbf16>
}

// -----

func.func @value_type(%q: tensor<1x2x8x16xbf16>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xbf16> {
  // expected-error @+1 {{'softmax.attention' op value element type 'f32' must be the query element type 'bf16'}}
  %0 = softmax.attention ins(%q, %q, %v : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xbf16>) masked(zero)
  return %0 : tensor<1x2x8x16xbf16>
}

// -----

func.func @output_type(%q: tensor<1x2x8x16xbf16>, %o: tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16> {
  // expected-error @+1 {{'softmax.attention' op output element type 'f16' must be the query element type 'bf16' or f32}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) outs(%o : tensor<1x2x8x16xf16>) masked(zero)
  return %0 : tensor<1x2x8x16xf16>
}

// -----

func.func @mask_type(%q: tensor<1x2x8x16xbf16>, %m: tensor<1x1x8x8xf16>) -> tensor<1x2x8x16xbf16> {
  // expected-error @+1 {{'softmax.attention' op mask element type 'f16' must be i1, f32 or the query element type 'bf16'}}
  %0 = softmax.attention ins(%q, %q, %q, %m : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x1x8x8xf16>) outs(%q : tensor<1x2x8x16xbf16>) masked(zero)
  return %0 : tensor<1x2x8x16xbf16>
}

// -----

func.func @mask_int_type(%q: tensor<1x2x8x16xf32>, %m: tensor<1x1x8x8xi8>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op operand #3 must be ranked tensor or memref of 1-bit signless integer or 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<1x1x8x8xi8>'}}
  %0 = softmax.attention ins(%q, %q, %q, %m : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x1x8x8xi8>) outs(%q : tensor<1x2x8x16xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @f64_query(%q: tensor<1x2x8x16xf64>) -> tensor<1x2x8x16xf64> {
  // expected-error @+1 {{'softmax.attention' op operand #0 must be ranked tensor or memref of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<1x2x8x16xf64>'}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64>) outs(%q : tensor<1x2x8x16xf64>) masked(zero)
  return %0 : tensor<1x2x8x16xf64>
}

// -----

func.func @lse_type(%q: tensor<1x2x8x16xbf16>, %l: tensor<1x2x8xbf16>) -> tensor<1x2x8x16xbf16> {
  // expected-error @+1 {{'softmax.attention' op operand #4 must be ranked tensor or memref of 32-bit float values, but got 'tensor<1x2x8xbf16>'}}
  %0:2 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) outs(%q, %l : tensor<1x2x8x16xbf16>, tensor<1x2x8xbf16>) masked(zero)
  return %0#0 : tensor<1x2x8x16xbf16>
}

// -----

func.func @dynamic_head_dim(%q: tensor<1x2x8x?xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op requires 'scale' when the head dimension D is dynamic (the default is 1/sqrt(D))}}
  %0 = softmax.attention ins(%q, %q, %o : tensor<1x2x8x?xf32>, tensor<1x2x8x?xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @zero_head_dim(%q: tensor<1x2x8x0xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op requires 'scale' when the head dimension D is 0 (the default is 1/sqrt(D))}}
  %0 = softmax.attention ins(%q, %q, %o : tensor<1x2x8x0xf32>, tensor<1x2x8x0xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @infinite_scale(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op scale must be finite, got inf}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) scale(0x7F800000)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @nan_scale(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op scale must be finite, got nan}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) scale(0x7FC00000)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @zero_window(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op window must be at least 1, got 0}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) causal window(0)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @negative_window(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{'softmax.attention' op window must be at least 1, got -4}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) masked(zero) window(-4)
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @missing_masked(%q: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%q : tensor<1x2x8x16xf32>) causal
  // expected-error @-1 {{expected 'masked'}}
  return %0 : tensor<1x2x8x16xf32>
}
