// RUN: softmax-opt %s -split-input-file -verify-diagnostics

func.func @lengths_rank(%q: tensor<2x2x4x16xf32>, %len: tensor<2x1xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op key_lengths must have rank 1 ([B]), got rank 2}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) key_lengths(%len : tensor<2x1xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @lengths_batch(%q: tensor<2x2x4x16xf32>, %len: tensor<3xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op key_lengths dimension 0 (B) must be 2 to match the query, got 3}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) key_lengths(%len : tensor<3xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @lengths_i64(%q: tensor<2x2x4x16xf32>, %len: tensor<2xi64>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{operand #3 must be key count per batch entry (i32 [B])}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) key_lengths(%len : tensor<2xi64>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @lengths_memref_on_tensors(%q: tensor<2x2x4x16xf32>, %len: memref<2xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op expects all operands to be tensors or all to be memrefs}}
  %0 = softmax.attention ins(%q, %q, %q : tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>, tensor<2x2x4x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) key_lengths(%len : memref<2xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @table_rank(%q: tensor<2x2x4x16xf32>, %k: tensor<9x8x2x16xf32>, %pt: tensor<2xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op page_table must have rank 2 ([B, pages per sequence]), got rank 1}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<2x2x4x16xf32>, tensor<9x8x2x16xf32>, tensor<9x8x2x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) page_table(%pt : tensor<2xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @table_batch(%q: tensor<2x2x4x16xf32>, %k: tensor<9x8x2x16xf32>, %pt: tensor<3x4xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op page_table dimension 0 (B) must be 2 to match the query, got 3}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<2x2x4x16xf32>, tensor<9x8x2x16xf32>, tensor<9x8x2x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) page_table(%pt : tensor<3x4xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @page_size_mismatch(%q: tensor<2x2x4x16xf32>, %k: tensor<9x8x2x16xf32>, %v: tensor<9x4x2x16xf32>, %pt: tensor<2x4xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op value dimension 1 (page_size) must be 8 to match the key, got 4}}
  %0 = softmax.attention ins(%q, %k, %v : tensor<2x2x4x16xf32>, tensor<9x8x2x16xf32>, tensor<9x4x2x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) page_table(%pt : tensor<2x4xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @paged_heads(%q: tensor<2x3x4x16xf32>, %k: tensor<9x8x2x16xf32>, %pt: tensor<2x4xi32>) -> tensor<2x3x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op query heads (H = 3) must be a multiple of key/value heads (Hkv = 2)}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<2x3x4x16xf32>, tensor<9x8x2x16xf32>, tensor<9x8x2x16xf32>) outs(%q : tensor<2x3x4x16xf32>) masked(zero) page_table(%pt : tensor<2x4xi32>)
  return %0 : tensor<2x3x4x16xf32>
}

// -----

func.func @paged_mask_keys(%q: tensor<2x2x4x16xf32>, %k: tensor<9x8x2x16xf32>, %m: tensor<2x2x4x30xi1>, %pt: tensor<2x4xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op mask dimension 3 (Nk) must be 32 to match the page table, got 30}}
  %0 = softmax.attention ins(%q, %k, %k, %m : tensor<2x2x4x16xf32>, tensor<9x8x2x16xf32>, tensor<9x8x2x16xf32>, tensor<2x2x4x30xi1>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) page_table(%pt : tensor<2x4xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @no_pages(%q: tensor<2x2x4x16xf32>, %k: tensor<0x8x2x16xf32>, %pt: tensor<2x4xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op a paged cache needs at least one page (key dimension 0, num_pages)}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<2x2x4x16xf32>, tensor<0x8x2x16xf32>, tensor<0x8x2x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) page_table(%pt : tensor<2x4xi32>)
  return %0 : tensor<2x2x4x16xf32>
}

// -----

func.func @no_table_pages(%q: tensor<2x2x4x16xf32>, %k: tensor<9x8x2x16xf32>, %pt: tensor<2x0xi32>) -> tensor<2x2x4x16xf32> {
  // expected-error @+1 {{'softmax.attention' op page_table needs at least one page per sequence (dimension 1); an empty sequence is a key length of 0}}
  %0 = softmax.attention ins(%q, %k, %k : tensor<2x2x4x16xf32>, tensor<9x8x2x16xf32>, tensor<9x8x2x16xf32>) outs(%q : tensor<2x2x4x16xf32>) masked(zero) page_table(%pt : tensor<2x0xi32>)
  return %0 : tensor<2x2x4x16xf32>
}
