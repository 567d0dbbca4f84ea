// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// RUN: softmax-opt %s --mlir-print-op-generic | softmax-opt | FileCheck %s

// Ragged decode: one key count per batch entry, on tensors and on memrefs,
// printed after window and before skip.
// CHECK-LABEL: func @ragged_decode
// CHECK: softmax.attention ins({{.*}}) outs(%{{.*}} : tensor<4x8x1x64xbf16>) masked(zero) causal key_lengths(%{{.*}} : tensor<4xi32>){{$}}
func.func @ragged_decode(%q: tensor<4x8x1x64xbf16>, %k: tensor<4x2x1024x64xbf16>,
                         %v: tensor<4x2x1024x64xbf16>, %len: tensor<4xi32>,
                         %o: tensor<4x8x1x64xbf16>) -> tensor<4x8x1x64xbf16> {
  %0 = softmax.attention
      ins(%q, %k, %v : tensor<4x8x1x64xbf16>, tensor<4x2x1024x64xbf16>,
                       tensor<4x2x1024x64xbf16>)
      outs(%o : tensor<4x8x1x64xbf16>) masked(zero) causal
      key_lengths(%len : tensor<4xi32>)
  return %0 : tensor<4x8x1x64xbf16>
}

// CHECK-LABEL: func @ragged_everything
// CHECK: softmax.attention ins({{.*}}) outs(%{{.*}}, %{{.*}} : memref<?x4x3x32xf32>, memref<?x4x3xf32>) masked(nan) scale(1.250000e-01) window(16) key_lengths(%{{.*}} : memref<?xi32>) skip(scale_factor %{{.*}} : f32, tile [1, 16]){{$}}
func.func @ragged_everything(%q: memref<?x4x3x32xf32>, %k: memref<?x1x?x32xf32>,
                             %v: memref<?x1x?x32xf32>, %m: memref<?x1x3x?xi1>,
                             %len: memref<?xi32>, %a: f32,
                             %o: memref<?x4x3x32xf32>, %lse: memref<?x4x3xf32>) {
  softmax.attention
      ins(%q, %k, %v, %m : memref<?x4x3x32xf32>, memref<?x1x?x32xf32>,
                           memref<?x1x?x32xf32>, memref<?x1x3x?xi1>)
      outs(%o, %lse : memref<?x4x3x32xf32>, memref<?x4x3xf32>) masked(nan)
      scale(0.125) window(16) key_lengths(%len : memref<?xi32>)
      skip(scale_factor %a : f32, tile [1, 16])
  return
}

// Paged keys and values ([num_pages, page_size, Hkv, D]) through a page
// table, with ragged lengths; printed after key_lengths.
// CHECK-LABEL: func @paged_decode
// CHECK: softmax.attention ins({{.*}} : tensor<4x8x1x64xbf16>, tensor<100x16x2x64xbf16>, tensor<100x16x2x64xbf16>) outs(%{{.*}} : tensor<4x8x1x64xbf16>) masked(zero) causal key_lengths(%{{.*}} : tensor<4xi32>) page_table(%{{.*}} : tensor<4x8xi32>){{$}}
func.func @paged_decode(%q: tensor<4x8x1x64xbf16>, %k: tensor<100x16x2x64xbf16>,
                        %v: tensor<100x16x2x64xbf16>, %len: tensor<4xi32>,
                        %pt: tensor<4x8xi32>, %o: tensor<4x8x1x64xbf16>)
    -> tensor<4x8x1x64xbf16> {
  %0 = softmax.attention
      ins(%q, %k, %v : tensor<4x8x1x64xbf16>, tensor<100x16x2x64xbf16>,
                       tensor<100x16x2x64xbf16>)
      outs(%o : tensor<4x8x1x64xbf16>) masked(zero) causal
      key_lengths(%len : tensor<4xi32>) page_table(%pt : tensor<4x8xi32>)
  return %0 : tensor<4x8x1x64xbf16>
}

// A mask's Nk is the table's pages times the page size (8 x 16).
// CHECK-LABEL: func @paged_mask
// CHECK: page_table(%{{.*}} : memref<?x8xi32>){{$}}
func.func @paged_mask(%q: memref<?x4x3x32xf32>, %k: memref<?x16x1x32xf32>,
                      %v: memref<?x16x1x32xf32>, %m: memref<?x1x3x128xf32>,
                      %pt: memref<?x8xi32>, %o: memref<?x4x3x32xf32>) {
  softmax.attention
      ins(%q, %k, %v, %m : memref<?x4x3x32xf32>, memref<?x16x1x32xf32>,
                           memref<?x16x1x32xf32>, memref<?x1x3x128xf32>)
      outs(%o : memref<?x4x3x32xf32>) masked(nan)
      page_table(%pt : memref<?x8xi32>)
  return
}
