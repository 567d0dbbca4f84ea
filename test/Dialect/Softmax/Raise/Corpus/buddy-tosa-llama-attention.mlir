// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyNext/next-attention.mlir (kernel)
// Converted from Inputs/buddy-tosa-llama-attention.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Form: tosa-to-linalg of a LLaMA attention core: matmul as batch_matmul, scale = mul by
//  reciprocal of a splat constant, [1,1,S,S] additive mask broadcast over heads,
//  reduce_max/sub/exp/reduce_sum/reciprocal/mul with keepdim [..,1] results and
//  expand_shape/collapse_shape from tosa.reshape, adds of zero constants
// Edits: renamed; the timing calls, the print and its tensor.cast removed; the attention output
//  %18 returned; 32 heads -> 3, sequence 40 -> 13, head dim 128 -> 16 (tensor types and the
//  tosa.const_shape values); the 1/sqrt(128) scale constant 11.3137083 kept; after conversion, the
//  dead tosa.const_shape ops (operands of the converted tosa.reshape ops) deleted.
// Semantics: softmax(Q K^T * (1/11.3137083) + mask) V; Q [H,S,D], K given transposed [H,D,S], V
//  [1,H,S,D], mask [1,1,S,S] broadcast over heads; result [H,S,D].

// CHECK-LABEL: func.func @buddy_llama_attention(
// CHECK-NOT: math.exp
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}}, %{{[^,:]*}} :{{.*}}{{.*}} scale({{(0\.0883883|8\.83883)[0-9]*(e-02)?}})
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
func.func @buddy_llama_attention(%arg0: tensor<3x13x16xf32>, %arg1: tensor<3x16x13xf32>, %arg2: tensor<1x1x13x13xf32>, %arg3: tensor<1x3x13x16xf32>) -> tensor<3x13x16xf32> {
  %cst = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_1 = arith.constant dense<0> : tensor<1xi8>
  %cst_2 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<3x13x13xf32>
  %1 = linalg.fill ins(%cst_2 : f32) outs(%0 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
  %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<3x13x16xf32>, tensor<3x16x13xf32>) outs(%1 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
  %expanded = tensor.expand_shape %2 [[0, 1], [2], [3]] output_shape [1, 3, 13, 13] : tensor<3x13x13xf32> into tensor<1x3x13x13xf32>
  %cst_3 = arith.constant dense<11.3137083> : tensor<1x3x13x13xf32>
  %cst_4 = arith.constant dense<0.0883883461> : tensor<1x3x13x13xf32>
  %4 = tensor.empty() : tensor<1x3x13x13xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %cst_4 : tensor<1x3x13x13xf32>, tensor<1x3x13x13xf32>) outs(%4 : tensor<1x3x13x13xf32>) {
  ^bb0(%in: f32, %in_14: f32, %out: f32):
    %25 = arith.mulf %in, %in_14 : f32
    linalg.yield %25 : f32
  } -> tensor<1x3x13x13xf32>
  %6 = tensor.empty() : tensor<1x3x13x13xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5, %arg2 : tensor<1x3x13x13xf32>, tensor<1x1x13x13xf32>) outs(%6 : tensor<1x3x13x13xf32>) {
  ^bb0(%in: f32, %in_14: f32, %out: f32):
    %25 = arith.addf %in, %in_14 : f32
    linalg.yield %25 : f32
  } -> tensor<1x3x13x13xf32>
  %8 = tensor.empty() : tensor<1x3x13xf32>
  %cst_5 = arith.constant -3.40282347E+38 : f32
  %9 = linalg.fill ins(%cst_5 : f32) outs(%8 : tensor<1x3x13xf32>) -> tensor<1x3x13xf32>
  %reduced = linalg.reduce ins(%7 : tensor<1x3x13x13xf32>) outs(%9 : tensor<1x3x13xf32>) dimensions = [3] 
    (%in: f32, %init: f32) {
      %25 = arith.maximumf %in, %init : f32
      linalg.yield %25 : f32
    }
  %expanded_6 = tensor.expand_shape %reduced [[0], [1], [2, 3]] output_shape [1, 3, 13, 1] : tensor<1x3x13xf32> into tensor<1x3x13x1xf32>
  %10 = tensor.empty() : tensor<1x3x13x13xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %expanded_6 : tensor<1x3x13x13xf32>, tensor<1x3x13x1xf32>) outs(%10 : tensor<1x3x13x13xf32>) {
  ^bb0(%in: f32, %in_14: f32, %out: f32):
    %25 = arith.subf %in, %in_14 : f32
    linalg.yield %25 : f32
  } -> tensor<1x3x13x13xf32>
  %12 = tensor.empty() : tensor<1x3x13x13xf32>
  %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x3x13x13xf32>) outs(%12 : tensor<1x3x13x13xf32>) {
  ^bb0(%in: f32, %out: f32):
    %25 = math.exp %in : f32
    linalg.yield %25 : f32
  } -> tensor<1x3x13x13xf32>
  %14 = tensor.empty() : tensor<1x3x13xf32>
  %cst_7 = arith.constant 0.000000e+00 : f32
  %15 = linalg.fill ins(%cst_7 : f32) outs(%14 : tensor<1x3x13xf32>) -> tensor<1x3x13xf32>
  %reduced_8 = linalg.reduce ins(%13 : tensor<1x3x13x13xf32>) outs(%15 : tensor<1x3x13xf32>) dimensions = [3] 
    (%in: f32, %init: f32) {
      %25 = arith.addf %in, %init : f32
      linalg.yield %25 : f32
    }
  %expanded_9 = tensor.expand_shape %reduced_8 [[0], [1], [2, 3]] output_shape [1, 3, 13, 1] : tensor<1x3x13xf32> into tensor<1x3x13x1xf32>
  %16 = tensor.empty() : tensor<1x3x13x1xf32>
  %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_9 : tensor<1x3x13x1xf32>) outs(%16 : tensor<1x3x13x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %cst_14 = arith.constant 1.000000e+00 : f32
    %25 = arith.divf %cst_14, %in : f32
    linalg.yield %25 : f32
  } -> tensor<1x3x13x1xf32>
  %18 = tensor.empty() : tensor<1x3x13x13xf32>
  %19 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13, %17 : tensor<1x3x13x13xf32>, tensor<1x3x13x1xf32>) outs(%18 : tensor<1x3x13x13xf32>) {
  ^bb0(%in: f32, %in_14: f32, %out: f32):
    %25 = arith.mulf %in, %in_14 : f32
    linalg.yield %25 : f32
  } -> tensor<1x3x13x13xf32>
  %cst_10 = arith.constant dense<0.000000e+00> : tensor<1x3x13x13xf32>
  %collapsed = tensor.collapse_shape %19 [[0, 1], [2], [3]] : tensor<1x3x13x13xf32> into tensor<3x13x13xf32>
  %cst_11 = arith.constant dense<0.000000e+00> : tensor<1x3x13x16xf32>
  %collapsed_12 = tensor.collapse_shape %arg3 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
  %cst_13 = arith.constant 0.000000e+00 : f32
  %22 = tensor.empty() : tensor<3x13x16xf32>
  %23 = linalg.fill ins(%cst_13 : f32) outs(%22 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
  %24 = linalg.batch_matmul ins(%collapsed, %collapsed_12 : tensor<3x13x13xf32>, tensor<3x13x16xf32>) outs(%23 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
  return %24 : tensor<3x13x16xf32>
}
