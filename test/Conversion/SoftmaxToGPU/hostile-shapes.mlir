// Shapes at the edges of the GPU mapping's arithmetic.
// RUN: softmax-opt %s -split-input-file -verify-diagnostics --softmax-map-to-gpu | FileCheck %s

// No row: nothing to compute and no launch (the heuristic divided the
// multiprocessor count by the row count: SIGFPE).
// CHECK-LABEL: func @no_rows
// CHECK-NOT: gpu.launch
// CHECK-NOT: softmax.softmax
// CHECK: return
func.func @no_rows(%x: memref<0x16384xf32>, %y: memref<0x16384xf32>) {
  softmax.softmax ins(%x : memref<0x16384xf32>) outs(%y : memref<0x16384xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// More blocks than a grid holds (the heuristic's divideCeil asserted).
func.func @too_many_rows(%x: memref<1099511627776x16384xf32>, %y: memref<1099511627776x16384xf32>) {
  // expected-error @+1 {{'softmax.softmax' op GPU mapping would launch 1099511627776 x 1 blocks; a grid holds at most 2147483647}}
  softmax.softmax ins(%x : memref<1099511627776x16384xf32>) outs(%y : memref<1099511627776x16384xf32>) dimension(1) masked(zero) algorithm(online)
  return
}

// -----

// A row count that does not fit int64.
func.func @row_count_overflows(%x: memref<4294967296x4294967296x16xf32>, %y: memref<4294967296x4294967296x16xf32>) {
  // expected-error @+1 {{'softmax.softmax' op GPU mapping: the element count of memref<4294967296x4294967296x16xf32> overflows int64}}
  softmax.softmax ins(%x : memref<4294967296x4294967296x16xf32>) outs(%y : memref<4294967296x4294967296x16xf32>) dimension(2) masked(zero) algorithm(online)
  return
}

// -----

// Head dimension 0 with an explicit scale passes the verifier; the mappings
// refuse it (the CPU one crashed).
func.func @head_dim_zero(%q: memref<1x1x4x0xf16>, %k: memref<1x1x8x0xf16>, %v: memref<1x1x8x16xf16>, %o: memref<1x1x4x16xf16>) {
  // expected-error @+1 {{'softmax.attention' op GPU attention mapping needs static head dimensions that are multiples of 16, from 16 to 256}}
  softmax.attention ins(%q, %k, %v : memref<1x1x4x0xf16>, memref<1x1x8x0xf16>, memref<1x1x8x16xf16>) outs(%o : memref<1x1x4x16xf16>) masked(zero) scale(1.0)
  return
}

// -----

func.func @workgroup_buffer(%x: memref<4x64xf32, #gpu.address_space<workgroup>>, %y: memref<4x64xf32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{'softmax.softmax' op GPU mapping expects buffers in the default memory space, not #gpu.address_space<workgroup>}}
  softmax.softmax ins(%x : memref<4x64xf32, #gpu.address_space<workgroup>>) outs(%y : memref<4x64xf32, #gpu.address_space<workgroup>>) dimension(1) masked(zero) algorithm(online)
  return
}
