// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// RUN: softmax-opt %s --mlir-print-op-generic | softmax-opt | FileCheck %s

// A scalar lambda, one query row by 16 keys per tile, with the counts.
// CHECK-LABEL: func @scalar_lambda
// CHECK: %{{.*}}:2 = softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x128x64xbf16>, tensor<1x4x512x64xbf16>, tensor<1x4x512x64xbf16>) outs(%{{.*}} : tensor<1x4x128x64xbf16>) masked(zero) causal skip(lambda %{{.*}} : f32, tile [1, 16]) skip_counts(%{{.*}} : tensor<2xi64>){{$}}
func.func @scalar_lambda(%q: tensor<1x4x128x64xbf16>, %k: tensor<1x4x512x64xbf16>,
                         %v: tensor<1x4x512x64xbf16>, %o: tensor<1x4x128x64xbf16>,
                         %t: f32, %n: tensor<2xi64>)
    -> (tensor<1x4x128x64xbf16>, tensor<2xi64>) {
  %0:2 = softmax.attention
      ins(%q, %k, %v : tensor<1x4x128x64xbf16>, tensor<1x4x512x64xbf16>,
                       tensor<1x4x512x64xbf16>)
      outs(%o : tensor<1x4x128x64xbf16>) masked(zero) causal
      skip(lambda %t : f32, tile [1, 16]) skip_counts(%n : tensor<2xi64>)
  return %0#0, %0#1 : tensor<1x4x128x64xbf16>, tensor<2xi64>
}

// One lambda per batch entry (FlashInfer's per-request threshold), with the
// lse, whose result comes before the counts' one; no counts here.
// CHECK-LABEL: func @per_batch_lse
// CHECK: %{{.*}}:2 = softmax.attention ins({{.*}}) outs(%{{.*}}, %{{.*}} : tensor<3x2x8x16xf32>, tensor<3x2x8xf32>) masked(nan) skip(lambda %{{.*}} : tensor<3xf32>, tile [16, 64]){{$}}
func.func @per_batch_lse(%q: tensor<3x2x8x16xf32>, %k: tensor<3x2x100x16xf32>,
                         %o: tensor<3x2x8x16xf32>, %l: tensor<3x2x8xf32>,
                         %t: tensor<3xf32>) -> (tensor<3x2x8x16xf32>, tensor<3x2x8xf32>) {
  %0:2 = softmax.attention ins(%q, %k, %k : tensor<3x2x8x16xf32>, tensor<3x2x100x16xf32>, tensor<3x2x100x16xf32>)
      outs(%o, %l : tensor<3x2x8x16xf32>, tensor<3x2x8xf32>) masked(nan)
      skip(lambda %t : tensor<3xf32>, tile [16, 64])
  return %0#0, %0#1 : tensor<3x2x8x16xf32>, tensor<3x2x8xf32>
}

// TensorRT-LLM's scale factor (lambda = a / Nk), with lse and counts: three
// results in init order.
// CHECK-LABEL: func @scale_factor
// CHECK: %{{.*}}:3 = softmax.attention ins({{.*}}) outs(%{{.*}}, %{{.*}} : tensor<1x1x4x8xf32>, tensor<1x1x4xf32>) masked(zero) scale(1.250000e-01) skip(scale_factor %{{.*}} : f32, tile [4, 8]) skip_counts(%{{.*}} : tensor<2xi64>){{$}}
func.func @scale_factor(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x?x8xf32>,
                        %o: tensor<1x1x4x8xf32>, %l: tensor<1x1x4xf32>,
                        %a: f32, %n: tensor<2xi64>)
    -> (tensor<1x1x4x8xf32>, tensor<1x1x4xf32>, tensor<2xi64>) {
  %0:3 = softmax.attention ins(%q, %k, %k : tensor<1x1x4x8xf32>, tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>)
      outs(%o, %l : tensor<1x1x4x8xf32>, tensor<1x1x4xf32>) masked(zero) scale(0.125)
      skip(scale_factor %a : f32, tile [4, 8]) skip_counts(%n : tensor<2xi64>)
  return %0#0, %0#1, %0#2 : tensor<1x1x4x8xf32>, tensor<1x1x4xf32>, tensor<2xi64>
}

// On buffers: no results; the per-batch threshold is a buffer too.
// CHECK-LABEL: func @buffers
// CHECK: softmax.attention ins({{.*}}) outs(%{{.*}} : memref<2x2x8x16xf32>) masked(zero) skip(lambda %{{.*}} : memref<2xf32>, tile [1, 8]) skip_counts(%{{.*}} : memref<2xi64>){{$}}
func.func @buffers(%q: memref<2x2x8x16xf32>, %o: memref<2x2x8x16xf32>,
                   %t: memref<2xf32>, %n: memref<2xi64>) {
  softmax.attention ins(%q, %q, %q : memref<2x2x8x16xf32>, memref<2x2x8x16xf32>, memref<2x2x8x16xf32>)
      outs(%o : memref<2x2x8x16xf32>) masked(zero)
      skip(lambda %t : memref<2xf32>, tile [1, 8]) skip_counts(%n : memref<2xi64>)
  return
}
