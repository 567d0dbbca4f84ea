// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyNext/next-mhsa-core.mlir (kernel)
// Converted from Inputs/buddy-tosa-mhsa-lse-softmax.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Form: softmax through its logsumexp: exp(x - (max + log(sum exp(x - max)))), math.exp on tensors
//  (convert-elementwise-to-linalg), mask reshaped from [1,1,S,S] to [S,S] and broadcast back,
//  output transpose + reshape
// Edits: renamed; the timing calls removed; 12 heads -> 3, sequence 1024 -> 13, head dim 128 -> 16
//  (tensor types, tosa.const_shape values, the extract_slice sizes); the scale constant
//  0.0883883461 (1/sqrt(128)) kept; after conversion, the dead tosa.const_shape ops (operands of
//  the converted tosa.reshape ops) deleted.
// Semantics: self-attention with Q = K = V = %arg3 [1,H,S,D] (the source kernel reads all three
//  from one argument), scale 0.0883883461, additive mask %arg2 [1,1,S,S]; softmax as exp(s - (max
//  + log(sum(exp(s - max))))); result transposed and merged to [1,S,H*D]. %arg0, %arg1, %arg4
//  unused.

// CHECK-LABEL: func.func @buddy_mhsa_lse_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}}, %{{[^,:]*}} :{{.*}}{{.*}} scale({{(0\.0883883|8\.83883)[0-9]*(e-02)?}})
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @buddy_mhsa_lse_softmax(%arg0: tensor<1x1x13x13xf32>, %arg1: tensor<1x1x13x13xf32>, %arg2: tensor<1x1x13x13xf32>, %arg3: tensor<1x3x13x16xf32>, %arg4: tensor<1x3x13x16xf32>) -> tensor<1x13x48xf32> {
  %cst = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_0 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_1 = arith.constant dense<0> : tensor<1xi8>
  %cst_2 = arith.constant 0.000000e+00 : f32
  %cst_3 = arith.constant dense<0.000000e+00> : tensor<13x13xf32>
  %collapsed = tensor.collapse_shape %arg2 [[0, 1, 2], [3]] : tensor<1x1x13x13xf32> into tensor<13x13xf32>
  %1 = tensor.empty() : tensor<13x13xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%cst_3, %collapsed : tensor<13x13xf32>, tensor<13x13xf32>) outs(%1 : tensor<13x13xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %35 = arith.addf %in, %in_21 : f32
    linalg.yield %35 : f32
  } -> tensor<13x13xf32>
  %3 = tensor.empty() : tensor<1x3x16x13xf32>
  %transposed = linalg.transpose ins(%arg3 : tensor<1x3x13x16xf32>) outs(%3 : tensor<1x3x16x13xf32>) permutation = [0, 1, 3, 2] 
  %collapsed_4 = tensor.collapse_shape %arg3 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
  %collapsed_5 = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<1x3x16x13xf32> into tensor<3x16x13xf32>
  %cst_6 = arith.constant 0.000000e+00 : f32
  %6 = tensor.empty() : tensor<3x13x13xf32>
  %7 = linalg.fill ins(%cst_6 : f32) outs(%6 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
  %8 = linalg.batch_matmul ins(%collapsed_4, %collapsed_5 : tensor<3x13x16xf32>, tensor<3x16x13xf32>) outs(%7 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
  %cst_7 = arith.constant 0.0883883461 : f32
  %cst_8 = arith.constant dense<0.0883883461> : tensor<3x13x13xf32>
  %9 = tensor.empty() : tensor<3x13x13xf32>
  %10 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %cst_8 : tensor<3x13x13xf32>, tensor<3x13x13xf32>) outs(%9 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %35 = arith.mulf %in, %in_21 : f32
    linalg.yield %35 : f32
  } -> tensor<3x13x13xf32>
  %expanded = tensor.expand_shape %2 [[0, 1], [2]] output_shape [1, 13, 13] : tensor<13x13xf32> into tensor<1x13x13xf32>
  %12 = tensor.empty() : tensor<3x13x13xf32>
  %13 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %expanded : tensor<3x13x13xf32>, tensor<1x13x13xf32>) outs(%12 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %35 = arith.addf %in, %in_21 : f32
    linalg.yield %35 : f32
  } -> tensor<3x13x13xf32>
  %14 = tensor.empty() : tensor<3x13xf32>
  %cst_9 = arith.constant -3.40282347E+38 : f32
  %15 = linalg.fill ins(%cst_9 : f32) outs(%14 : tensor<3x13xf32>) -> tensor<3x13xf32>
  %reduced = linalg.reduce ins(%13 : tensor<3x13x13xf32>) outs(%15 : tensor<3x13xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %35 = arith.maximumf %in, %init : f32
      linalg.yield %35 : f32
    }
  %expanded_10 = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [3, 13, 1] : tensor<3x13xf32> into tensor<3x13x1xf32>
  %16 = tensor.empty() : tensor<3x13x13xf32>
  %17 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %expanded_10 : tensor<3x13x13xf32>, tensor<3x13x1xf32>) outs(%16 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %35 = arith.subf %in, %in_21 : f32
    linalg.yield %35 : f32
  } -> tensor<3x13x13xf32>
  %18 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17 : tensor<3x13x13xf32>) outs(%17 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %out: f32):
    %35 = math.exp %in : f32
    linalg.yield %35 : f32
  } -> tensor<3x13x13xf32>
  %19 = tensor.empty() : tensor<3x13xf32>
  %cst_11 = arith.constant 0.000000e+00 : f32
  %20 = linalg.fill ins(%cst_11 : f32) outs(%19 : tensor<3x13xf32>) -> tensor<3x13xf32>
  %reduced_12 = linalg.reduce ins(%18 : tensor<3x13x13xf32>) outs(%20 : tensor<3x13xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %35 = arith.addf %in, %init : f32
      linalg.yield %35 : f32
    }
  %expanded_13 = tensor.expand_shape %reduced_12 [[0], [1, 2]] output_shape [3, 13, 1] : tensor<3x13xf32> into tensor<3x13x1xf32>
  %21 = tensor.empty() : tensor<3x13x1xf32>
  %22 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_13 : tensor<3x13x1xf32>) outs(%21 : tensor<3x13x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %35 = math.log %in : f32
    linalg.yield %35 : f32
  } -> tensor<3x13x1xf32>
  %23 = tensor.empty() : tensor<3x13x1xf32>
  %24 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_10, %22 : tensor<3x13x1xf32>, tensor<3x13x1xf32>) outs(%23 : tensor<3x13x1xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %35 = arith.addf %in, %in_21 : f32
    linalg.yield %35 : f32
  } -> tensor<3x13x1xf32>
  %25 = tensor.empty() : tensor<3x13x13xf32>
  %26 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %24 : tensor<3x13x13xf32>, tensor<3x13x1xf32>) outs(%25 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %in_21: f32, %out: f32):
    %35 = arith.subf %in, %in_21 : f32
    linalg.yield %35 : f32
  } -> tensor<3x13x13xf32>
  %27 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%26 : tensor<3x13x13xf32>) outs(%26 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %out: f32):
    %35 = math.exp %in : f32
    linalg.yield %35 : f32
  } -> tensor<3x13x13xf32>
  %collapsed_14 = tensor.collapse_shape %24 [[0], [1, 2]] : tensor<3x13x1xf32> into tensor<3x13xf32>
  %expanded_15 = tensor.expand_shape %collapsed_14 [[0, 1], [2]] output_shape [1, 3, 13] : tensor<3x13xf32> into tensor<1x3x13xf32>
  %collapsed_16 = tensor.collapse_shape %arg3 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
  %cst_17 = arith.constant 0.000000e+00 : f32
  %29 = tensor.empty() : tensor<3x13x16xf32>
  %30 = linalg.fill ins(%cst_17 : f32) outs(%29 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
  %31 = linalg.batch_matmul ins(%27, %collapsed_16 : tensor<3x13x13xf32>, tensor<3x13x16xf32>) outs(%30 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
  %expanded_18 = tensor.expand_shape %31 [[0, 1], [2], [3]] output_shape [1, 3, 13, 16] : tensor<3x13x16xf32> into tensor<1x3x13x16xf32>
  %33 = tensor.empty() : tensor<1x13x3x16xf32>
  %transposed_19 = linalg.transpose ins(%expanded_18 : tensor<1x3x13x16xf32>) outs(%33 : tensor<1x13x3x16xf32>) permutation = [0, 2, 1, 3] 
  %collapsed_20 = tensor.collapse_shape %transposed_19 [[0], [1], [2, 3]] : tensor<1x13x3x16xf32> into tensor<1x13x48xf32>
  return %collapsed_20 : tensor<1x13x48xf32>
}
