// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyNext/next-gqa-attention.mlir (kernel)
// Converted from Inputs/buddy-tosa-gqa-decode-lse-softmax.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Form: decode step: QK^T as linalg.batch_matmul with a transposed-B indexing map (K read as
//  [H,N,D]), GQA by broadcast-add of zeros, mask through reshape and add of a splat zero, softmax
//  through its logsumexp, math.exp on tensors
// Edits: renamed; 12 query heads -> 6, 2 kv heads kept (group 6 -> 3), cache length 1024 -> 37,
//  head dim 128 -> 16 (tensor types and tosa.const_shape values); scale 0.0883883461 kept; after
//  conversion, the dead tosa.const_shape ops (operands of the converted tosa.reshape ops) deleted.
// Semantics: single-query (decode) GQA: 6 query heads over a 2-head K/V cache of 37 entries, scale
//  0.0883883461, additive mask [1,1,1,37]; softmax written as exp(s - (max + log(sum(exp(s -
//  max))))); result [1,6,1,16].

// CHECK-LABEL: func.func @buddy_gqa_decode_lse_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}}, %{{[^,:]*}} :{{.*}}{{.*}} scale({{(0\.0883883|8\.83883)[0-9]*(e-02)?}})
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map7 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map8 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @buddy_gqa_decode_lse_softmax(%arg0: tensor<1x6x1x16xf32>, %arg1: tensor<1x2x37x16xf32>, %arg2: tensor<1x2x37x16xf32>, %arg3: tensor<1x1x1x37xf32>) -> tensor<1x6x1x16xf32> {
  %expanded = tensor.expand_shape %arg1 [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 37, 16] : tensor<1x2x37x16xf32> into tensor<1x2x1x37x16xf32>
  %cst = arith.constant dense<0.000000e+00> : tensor<1x2x3x37x16xf32>
  %1 = tensor.empty() : tensor<1x2x3x37x16xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %cst : tensor<1x2x1x37x16xf32>, tensor<1x2x3x37x16xf32>) outs(%1 : tensor<1x2x3x37x16xf32>) {
  ^bb0(%in: f32, %in_26: f32, %out: f32):
    %41 = arith.addf %in, %in_26 : f32
    linalg.yield %41 : f32
  } -> tensor<1x2x3x37x16xf32>
  %collapsed = tensor.collapse_shape %2 [[0], [1, 2], [3], [4]] : tensor<1x2x3x37x16xf32> into tensor<1x6x37x16xf32>
  %expanded_0 = tensor.expand_shape %arg2 [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 37, 16] : tensor<1x2x37x16xf32> into tensor<1x2x1x37x16xf32>
  %cst_1 = arith.constant dense<0.000000e+00> : tensor<1x2x3x37x16xf32>
  %5 = tensor.empty() : tensor<1x2x3x37x16xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded_0, %cst_1 : tensor<1x2x1x37x16xf32>, tensor<1x2x3x37x16xf32>) outs(%5 : tensor<1x2x3x37x16xf32>) {
  ^bb0(%in: f32, %in_26: f32, %out: f32):
    %41 = arith.addf %in, %in_26 : f32
    linalg.yield %41 : f32
  } -> tensor<1x2x3x37x16xf32>
  %collapsed_2 = tensor.collapse_shape %6 [[0], [1, 2], [3], [4]] : tensor<1x2x3x37x16xf32> into tensor<1x6x37x16xf32>
  %cst_3 = arith.constant 0.000000e+00 : f32
  %cst_4 = arith.constant dense<0.000000e+00> : tensor<1x37xf32>
  %collapsed_5 = tensor.collapse_shape %arg3 [[0, 1, 2], [3]] : tensor<1x1x1x37xf32> into tensor<1x37xf32>
  %9 = tensor.empty() : tensor<1x37xf32>
  %10 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%cst_4, %collapsed_5 : tensor<1x37xf32>, tensor<1x37xf32>) outs(%9 : tensor<1x37xf32>) {
  ^bb0(%in: f32, %in_26: f32, %out: f32):
    %41 = arith.addf %in, %in_26 : f32
    linalg.yield %41 : f32
  } -> tensor<1x37xf32>
  %11 = tensor.empty() : tensor<1x6x16x37xf32>
  %transposed = linalg.transpose ins(%collapsed : tensor<1x6x37x16xf32>) outs(%11 : tensor<1x6x16x37xf32>) permutation = [0, 1, 3, 2] 
  %collapsed_6 = tensor.collapse_shape %arg0 [[0, 1], [2], [3]] : tensor<1x6x1x16xf32> into tensor<6x1x16xf32>
  %13 = tensor.empty() : tensor<1x6x37x16xf32>
  %transposed_7 = linalg.transpose ins(%transposed : tensor<1x6x16x37xf32>) outs(%13 : tensor<1x6x37x16xf32>) permutation = [0, 1, 3, 2] 
  %collapsed_8 = tensor.collapse_shape %transposed_7 [[0, 1], [2], [3]] : tensor<1x6x37x16xf32> into tensor<6x37x16xf32>
  %cst_9 = arith.constant dense<0.000000e+00> : tensor<6x1x37xf32>
  %15 = linalg.batch_matmul indexing_maps = [#map3, #map4, #map5] ins(%collapsed_6, %collapsed_8 : tensor<6x1x16xf32>, tensor<6x37x16xf32>) outs(%cst_9 : tensor<6x1x37xf32>) -> tensor<6x1x37xf32>
  %cst_10 = arith.constant 0.0883883461 : f32
  %cst_11 = arith.constant dense<0.0883883461> : tensor<6x1x37xf32>
  %cst_12 = arith.constant dense<0> : tensor<1xi8>
  %16 = tensor.empty() : tensor<6x1x37xf32>
  %17 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15, %cst_11 : tensor<6x1x37xf32>, tensor<6x1x37xf32>) outs(%16 : tensor<6x1x37xf32>) {
  ^bb0(%in: f32, %in_26: f32, %out: f32):
    %41 = arith.mulf %in, %in_26 : f32
    linalg.yield %41 : f32
  } -> tensor<6x1x37xf32>
  %expanded_13 = tensor.expand_shape %10 [[0, 1], [2]] output_shape [1, 1, 37] : tensor<1x37xf32> into tensor<1x1x37xf32>
  %19 = tensor.empty() : tensor<6x1x37xf32>
  %20 = linalg.generic {indexing_maps = [#map6, #map7, #map6], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17, %expanded_13 : tensor<6x1x37xf32>, tensor<1x1x37xf32>) outs(%19 : tensor<6x1x37xf32>) {
  ^bb0(%in: f32, %in_26: f32, %out: f32):
    %41 = arith.addf %in, %in_26 : f32
    linalg.yield %41 : f32
  } -> tensor<6x1x37xf32>
  %21 = tensor.empty() : tensor<6x1xf32>
  %cst_14 = arith.constant -3.40282347E+38 : f32
  %22 = linalg.fill ins(%cst_14 : f32) outs(%21 : tensor<6x1xf32>) -> tensor<6x1xf32>
  %reduced = linalg.reduce ins(%20 : tensor<6x1x37xf32>) outs(%22 : tensor<6x1xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %41 = arith.maximumf %in, %init : f32
      linalg.yield %41 : f32
    }
  %expanded_15 = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [6, 1, 1] : tensor<6x1xf32> into tensor<6x1x1xf32>
  %23 = tensor.empty() : tensor<6x1x37xf32>
  %24 = linalg.generic {indexing_maps = [#map6, #map8, #map6], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %expanded_15 : tensor<6x1x37xf32>, tensor<6x1x1xf32>) outs(%23 : tensor<6x1x37xf32>) {
  ^bb0(%in: f32, %in_26: f32, %out: f32):
    %41 = arith.subf %in, %in_26 : f32
    linalg.yield %41 : f32
  } -> tensor<6x1x37xf32>
  %25 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel"]} ins(%24 : tensor<6x1x37xf32>) outs(%24 : tensor<6x1x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %41 = math.exp %in : f32
    linalg.yield %41 : f32
  } -> tensor<6x1x37xf32>
  %26 = tensor.empty() : tensor<6x1xf32>
  %cst_16 = arith.constant 0.000000e+00 : f32
  %27 = linalg.fill ins(%cst_16 : f32) outs(%26 : tensor<6x1xf32>) -> tensor<6x1xf32>
  %reduced_17 = linalg.reduce ins(%25 : tensor<6x1x37xf32>) outs(%27 : tensor<6x1xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %41 = arith.addf %in, %init : f32
      linalg.yield %41 : f32
    }
  %expanded_18 = tensor.expand_shape %reduced_17 [[0], [1, 2]] output_shape [6, 1, 1] : tensor<6x1xf32> into tensor<6x1x1xf32>
  %28 = tensor.empty() : tensor<6x1x1xf32>
  %29 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_18 : tensor<6x1x1xf32>) outs(%28 : tensor<6x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %41 = math.log %in : f32
    linalg.yield %41 : f32
  } -> tensor<6x1x1xf32>
  %30 = tensor.empty() : tensor<6x1x1xf32>
  %31 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_15, %29 : tensor<6x1x1xf32>, tensor<6x1x1xf32>) outs(%30 : tensor<6x1x1xf32>) {
  ^bb0(%in: f32, %in_26: f32, %out: f32):
    %41 = arith.addf %in, %in_26 : f32
    linalg.yield %41 : f32
  } -> tensor<6x1x1xf32>
  %32 = tensor.empty() : tensor<6x1x37xf32>
  %33 = linalg.generic {indexing_maps = [#map6, #map8, #map6], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %31 : tensor<6x1x37xf32>, tensor<6x1x1xf32>) outs(%32 : tensor<6x1x37xf32>) {
  ^bb0(%in: f32, %in_26: f32, %out: f32):
    %41 = arith.subf %in, %in_26 : f32
    linalg.yield %41 : f32
  } -> tensor<6x1x37xf32>
  %34 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel"]} ins(%33 : tensor<6x1x37xf32>) outs(%33 : tensor<6x1x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %41 = math.exp %in : f32
    linalg.yield %41 : f32
  } -> tensor<6x1x37xf32>
  %collapsed_19 = tensor.collapse_shape %31 [[0], [1, 2]] : tensor<6x1x1xf32> into tensor<6x1xf32>
  %expanded_20 = tensor.expand_shape %collapsed_19 [[0, 1], [2]] output_shape [1, 6, 1] : tensor<6x1xf32> into tensor<1x6x1xf32>
  %collapsed_21 = tensor.collapse_shape %6 [[0, 1, 2], [3], [4]] : tensor<1x2x3x37x16xf32> into tensor<6x37x16xf32>
  %cst_22 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_23 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_24 = arith.constant 0.000000e+00 : f32
  %37 = tensor.empty() : tensor<6x1x16xf32>
  %38 = linalg.fill ins(%cst_24 : f32) outs(%37 : tensor<6x1x16xf32>) -> tensor<6x1x16xf32>
  %39 = linalg.batch_matmul ins(%34, %collapsed_21 : tensor<6x1x37xf32>, tensor<6x37x16xf32>) outs(%38 : tensor<6x1x16xf32>) -> tensor<6x1x16xf32>
  %expanded_25 = tensor.expand_shape %39 [[0, 1], [2], [3]] output_shape [1, 6, 1, 16] : tensor<6x1x16xf32> into tensor<1x6x1x16xf32>
  return %expanded_25 : tensor<1x6x1x16xf32>
}
