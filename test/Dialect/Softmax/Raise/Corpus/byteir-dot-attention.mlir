// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: bytedance/byteir@0e83d42baff5842ddd433b8f1a04e0d783683536:compiler/test/Dialect/Linalg/fuse-attention-upstream.mlir (dot_attention)
// Form: 2-D linalg.matmul contractions, linalg.reduce (maxnumf, addf) with -inf seed, sub+exp
//  fused, divf; no scale
// Edits: renamed; the test's CHECK lines inside the body removed; 1024 queries -> 13, head dim 32
//  -> 24, 512 keys -> 37.
// Semantics: unscaled single-head attention softmax(Q Kt) V with K given transposed ([D, Nk]); Q
//  [Nq, D], V [Nk, D].

// CHECK-LABEL: func.func @byteir_dot_attention(
// CHECK-NOT: math.exp
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}} :{{.*}}{{.*}} scale(1.000000e+00)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @byteir_dot_attention(%arg0: tensor<13x24xf32>, %arg1: tensor<24x37xf32>, %arg2: tensor<37x24xf32>) -> tensor<13x24xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<13x37xf32>
  %1 = tensor.empty() : tensor<13x24xf32>
  %2 = tensor.empty() : tensor<13xf32>
  %3 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<13xf32>) -> tensor<13xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%0 : tensor<13x37xf32>) -> tensor<13x37xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%1 : tensor<13x24xf32>) -> tensor<13x24xf32>
  %6 = linalg.fill ins(%cst : f32) outs(%2 : tensor<13xf32>) -> tensor<13xf32>
  %7 = linalg.matmul ins(%arg0, %arg1 : tensor<13x24xf32>, tensor<24x37xf32>) outs(%4 : tensor<13x37xf32>) -> tensor<13x37xf32>
  %reduced = linalg.reduce ins(%7 : tensor<13x37xf32>) outs(%3 : tensor<13xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %11 = arith.maxnumf %in, %init : f32
      linalg.yield %11 : f32
    }
  %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %reduced : tensor<13x37xf32>, tensor<13xf32>) outs(%0 : tensor<13x37xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %11 = arith.subf %in, %in_2 : f32
    %12 = math.exp %11 : f32
    linalg.yield %12 : f32
  } -> tensor<13x37xf32>
  %reduced_1 = linalg.reduce ins(%8 : tensor<13x37xf32>) outs(%6 : tensor<13xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %11 = arith.addf %in, %init : f32
      linalg.yield %11 : f32
    }
  %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %reduced_1 : tensor<13x37xf32>, tensor<13xf32>) outs(%0 : tensor<13x37xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %11 = arith.divf %in, %in_2 : f32
    linalg.yield %11 : f32
  } -> tensor<13x37xf32>
  %10 = linalg.matmul {__root__} ins(%9, %arg2 : tensor<13x37xf32>, tensor<37x24xf32>) outs(%5 : tensor<13x24xf32>) -> tensor<13x24xf32>
  return %10 : tensor<13x24xf32>
}
