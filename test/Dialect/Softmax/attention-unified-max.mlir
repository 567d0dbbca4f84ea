// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// RUN: softmax-opt %s --mlir-print-op-generic | softmax-opt | FileCheck %s

// A unified max is printed last, after skip_counts, with phi as an f32 and
// the property unified_max in generic form.
// CHECK-LABEL: func.func @decode
// CHECK:       softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x1x64xbf16>, tensor<2x2x1031x64xbf16>, tensor<2x2x1031x64xbf16>) outs(%{{.*}}, %{{.*}} : tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>) masked(zero) algorithm(unified_max, phi = 4.000000e+00){{$}}
func.func @decode(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x1031x64xbf16>,
                  %v: tensor<2x2x1031x64xbf16>, %o: tensor<2x8x1x64xbf16>,
                  %l: tensor<2x8x1xf32>) -> (tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>) {
  %r:2 = softmax.attention ins(%q, %k, %v : tensor<2x8x1x64xbf16>, tensor<2x2x1031x64xbf16>, tensor<2x2x1031x64xbf16>)
      outs(%o, %l : tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>) masked(zero)
      algorithm(unified_max, phi = 4.0)
  return %r#0, %r#1 : tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>
}

// With everything else: causal, ragged, paged, on memrefs.
// CHECK-LABEL: func.func @paged_memref
// CHECK:       softmax.attention {{.*}} masked(nan) causal key_lengths(%{{.*}} : memref<2xi32>) page_table(%{{.*}} : memref<2x4xi32>) algorithm(unified_max, phi = -2.500000e+00){{$}}
func.func @paged_memref(%q: memref<2x4x1x32xf16>, %kv: memref<9x16x2x32xf16>,
                        %len: memref<2xi32>, %pt: memref<2x4xi32>,
                        %o: memref<2x4x1x32xf16>) {
  softmax.attention ins(%q, %kv, %kv : memref<2x4x1x32xf16>, memref<9x16x2x32xf16>, memref<9x16x2x32xf16>)
      outs(%o : memref<2x4x1x32xf16>) masked(nan) causal
      key_lengths(%len : memref<2xi32>) page_table(%pt : memref<2x4xi32>)
      algorithm(unified_max, phi = -2.5)
  return
}
