// Shapes at the edges of the CPU mapping.
// RUN: softmax-opt %s -split-input-file -verify-diagnostics --softmax-map-to-cpu="vector-width=8"

// Head dimension 0 with an explicit scale passes the verifier; the mapping
// refuses it (it crashed building the row).
func.func @head_dim_zero(%q: memref<1x1x4x0xf32>, %k: memref<1x1x8x0xf32>, %v: memref<1x1x8x16xf32>, %o: memref<1x1x4x16xf32>) {
  // expected-error @+1 {{'softmax.attention' op CPU attention mapping needs a query head dimension (query dimension 3) of at least 1}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x0xf32>, memref<1x1x8x0xf32>, memref<1x1x8x16xf32>) outs(%o : memref<1x1x4x16xf32>) masked(zero) scale(1.0)
  return
}

// -----

// Host code cannot address GPU workgroup memory (this printed a conversion
// error, exited 0 and left memref types behind).
func.func @workgroup_buffer(%x: memref<4x64xf32, #gpu.address_space<workgroup>>, %y: memref<4x64xf32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{'softmax.softmax' op CPU mapping expects buffers in the default memory space, not #gpu.address_space<workgroup>}}
  softmax.softmax ins(%x : memref<4x64xf32, #gpu.address_space<workgroup>>) outs(%y : memref<4x64xf32, #gpu.address_space<workgroup>>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// An element count that does not fit int64: the row views would multiply
// the sizes past it (found by the fuzzer: signed overflow under UBSan).
func.func @element_count_overflows(%x: memref<4294967296x4294967296x16xf32>, %y: memref<4294967296x4294967296x16xf32>) {
  // expected-error @+1 {{'softmax.softmax' op CPU mapping: the element count of memref<4294967296x4294967296x16xf32> overflows int64}}
  softmax.softmax ins(%x : memref<4294967296x4294967296x16xf32>) outs(%y : memref<4294967296x4294967296x16xf32>) dimension(2) masked(zero) algorithm(exp_pair)
  return
}
