// RUN: softmax-opt %s | softmax-opt | FileCheck %s
// RUN: softmax-opt %s --mlir-print-op-generic | softmax-opt | FileCheck %s

// Multi-head attention with the defaults: scale 1/sqrt(D), no mask, no lse.
// CHECK-LABEL: func @mha
// CHECK: %{{.*}} = softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>) outs(%{{.*}} : tensor<2x8x128x64xbf16>) masked(zero){{$}}
func.func @mha(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x8x128x64xbf16>,
               %v: tensor<2x8x128x64xbf16>, %o: tensor<2x8x128x64xbf16>)
    -> tensor<2x8x128x64xbf16> {
  %0 = softmax.attention
      ins(%q, %k, %v : tensor<2x8x128x64xbf16>, tensor<2x8x128x64xbf16>,
                       tensor<2x8x128x64xbf16>)
      outs(%o : tensor<2x8x128x64xbf16>) masked(zero)
  return %0 : tensor<2x8x128x64xbf16>
}

// Every optional attribute, printed in a fixed order.
// CHECK-LABEL: func @causal_window
// CHECK: softmax.attention ins({{.*}}) outs(%{{.*}} : tensor<1x4x16x16xf32>) masked(nan) scale(2.500000e-01) causal window(8){{$}}
func.func @causal_window(%q: tensor<1x4x16x32xf32>, %k: tensor<1x4x64x32xf32>,
                         %v: tensor<1x4x64x16xf32>, %o: tensor<1x4x16x16xf32>)
    -> tensor<1x4x16x16xf32> {
  %0 = softmax.attention ins(%q, %k, %v : tensor<1x4x16x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x16xf32>)
      outs(%o : tensor<1x4x16x16xf32>) masked(nan) scale(0.25) causal window(8)
  return %0 : tensor<1x4x16x16xf32>
}

// A window without causal (keys on both sides of the diagonal), and a
// negative scale, which is allowed.
// CHECK-LABEL: func @window_only
// CHECK: softmax.attention {{.*}} masked(zero) scale(-1.000000e+00) window(3){{$}}
func.func @window_only(%q: tensor<1x1x8x4xf16>, %o: tensor<1x1x8x4xf16>) -> tensor<1x1x8x4xf16> {
  %0 = softmax.attention ins(%q, %q, %q : tensor<1x1x8x4xf16>, tensor<1x1x8x4xf16>, tensor<1x1x8x4xf16>)
      outs(%o : tensor<1x1x8x4xf16>) masked(zero) scale(-1.0) window(3)
  return %0 : tensor<1x1x8x4xf16>
}

// Grouped-query attention (32 query heads over 8 key/value heads) with an
// additive f32 mask broadcast over heads, an f32 output and the lse.
// CHECK-LABEL: func @gqa_lse
// CHECK: %{{.*}}:2 = softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x32x1x128xf16>, tensor<4x8x?x128xf16>, tensor<4x8x?x128xf16>, tensor<4x1x1x?xf32>) outs(%{{.*}}, %{{.*}} : tensor<4x32x1x128xf32>, tensor<4x32x1xf32>) masked(nan) scale(0.0883883461){{$}}
func.func @gqa_lse(%q: tensor<4x32x1x128xf16>, %k: tensor<4x8x?x128xf16>,
                   %v: tensor<4x8x?x128xf16>, %mask: tensor<4x1x1x?xf32>,
                   %o: tensor<4x32x1x128xf32>, %l: tensor<4x32x1xf32>)
    -> (tensor<4x32x1x128xf32>, tensor<4x32x1xf32>) {
  %0, %1 = softmax.attention
      ins(%q, %k, %v, %mask : tensor<4x32x1x128xf16>, tensor<4x8x?x128xf16>,
                              tensor<4x8x?x128xf16>, tensor<4x1x1x?xf32>)
      outs(%o, %l : tensor<4x32x1x128xf32>, tensor<4x32x1xf32>)
      masked(nan) scale(0.0883883461)
  return %0, %1 : tensor<4x32x1x128xf32>, tensor<4x32x1xf32>
}

// Multi-query attention (one key/value head) with a boolean mask of the
// full shape.
// CHECK-LABEL: func @mqa_bool_mask
// CHECK: softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x16x64x64xbf16>, tensor<2x1x64x64xbf16>, tensor<2x1x64x32xbf16>, tensor<2x16x64x64xi1>) outs(%{{.*}} : tensor<2x16x64x32xbf16>) masked(zero) causal{{$}}
func.func @mqa_bool_mask(%q: tensor<2x16x64x64xbf16>, %k: tensor<2x1x64x64xbf16>,
                         %v: tensor<2x1x64x32xbf16>, %mask: tensor<2x16x64x64xi1>,
                         %o: tensor<2x16x64x32xbf16>) -> tensor<2x16x64x32xbf16> {
  %0 = softmax.attention
      ins(%q, %k, %v, %mask : tensor<2x16x64x64xbf16>, tensor<2x1x64x64xbf16>,
                              tensor<2x1x64x32xbf16>, tensor<2x16x64x64xi1>)
      outs(%o : tensor<2x16x64x32xbf16>) masked(zero) causal
  return %0 : tensor<2x16x64x32xbf16>
}

// An additive mask in the query element type, broadcast over the batch.
// CHECK-LABEL: func @bf16_mask
// CHECK: softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : {{.*}}, tensor<1x8x16x16xbf16>) outs
func.func @bf16_mask(%q: tensor<3x8x16x16xbf16>, %mask: tensor<1x8x16x16xbf16>,
                     %o: tensor<3x8x16x16xbf16>) -> tensor<3x8x16x16xbf16> {
  %0 = softmax.attention
      ins(%q, %q, %q, %mask : tensor<3x8x16x16xbf16>, tensor<3x8x16x16xbf16>,
                              tensor<3x8x16x16xbf16>, tensor<1x8x16x16xbf16>)
      outs(%o : tensor<3x8x16x16xbf16>) masked(zero)
  return %0 : tensor<3x8x16x16xbf16>
}

// Every dimension dynamic: the scale must be given; a dynamic mask dimension
// stands for the full size, not a broadcast.
// CHECK-LABEL: func @dynamic
// CHECK: %{{.*}}:2 = softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xi1>) outs(%{{.*}}, %{{.*}} : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>) masked(zero) scale(1.000000e+00) causal{{$}}
func.func @dynamic(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>,
                   %v: tensor<?x?x?x?xf32>, %mask: tensor<?x?x?x?xi1>,
                   %o: tensor<?x?x?x?xf32>, %l: tensor<?x?x?xf32>)
    -> (tensor<?x?x?x?xf32>, tensor<?x?x?xf32>) {
  %0:2 = softmax.attention
      ins(%q, %k, %v, %mask : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>,
                              tensor<?x?x?x?xf32>, tensor<?x?x?x?xi1>)
      outs(%o, %l : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>)
      masked(zero) scale(1.0) causal
  return %0#0, %0#1 : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>
}

// D dynamic in the query but static in the key: the default scale applies.
// CHECK-LABEL: func @head_dim_from_key
// CHECK: softmax.attention {{.*}} masked(zero){{$}}
func.func @head_dim_from_key(%q: tensor<1x2x8x?xf32>, %k: tensor<1x2x8x16xf32>,
                             %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = softmax.attention ins(%q, %k, %k : tensor<1x2x8x?xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>)
      outs(%o : tensor<1x2x8x16xf32>) masked(zero)
  return %0 : tensor<1x2x8x16xf32>
}

// After bufferization the op takes memrefs and returns nothing.
// CHECK-LABEL: func @buffers
// CHECK: softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x4x?x64xf16>, memref<1x2x?x64xf16>, memref<1x2x?x64xf16>) outs(%{{.*}} : memref<1x4x?x64xf16>) masked(zero) causal{{$}}
func.func @buffers(%q: memref<1x4x?x64xf16>, %k: memref<1x2x?x64xf16>,
                   %v: memref<1x2x?x64xf16>, %o: memref<1x4x?x64xf16>) {
  softmax.attention ins(%q, %k, %v : memref<1x4x?x64xf16>, memref<1x2x?x64xf16>, memref<1x2x?x64xf16>)
      outs(%o : memref<1x4x?x64xf16>) masked(zero) causal
  return
}

// CHECK-LABEL: func @buffers_mask_lse
// CHECK: softmax.attention ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<2x4x8x16xf32>, memref<2x4x8x16xf32>, memref<2x4x8x16xf32>, memref<1x1x8x8xi1>) outs(%{{.*}}, %{{.*}} : memref<2x4x8x16xf32>, memref<2x4x8xf32>) masked(nan) window(2){{$}}
func.func @buffers_mask_lse(%q: memref<2x4x8x16xf32>, %mask: memref<1x1x8x8xi1>,
                            %o: memref<2x4x8x16xf32>, %l: memref<2x4x8xf32>) {
  softmax.attention ins(%q, %q, %q, %mask : memref<2x4x8x16xf32>, memref<2x4x8x16xf32>, memref<2x4x8x16xf32>, memref<1x1x8x8xi1>)
      outs(%o, %l : memref<2x4x8x16xf32>, memref<2x4x8xf32>) masked(nan) window(2)
  return
}
