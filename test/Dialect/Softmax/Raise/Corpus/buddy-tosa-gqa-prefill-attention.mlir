// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyTransformer/subgraph0_timed.mlir (subgraph0, the attention block (%36 .. %99))
// Converted from Inputs/buddy-tosa-gqa-prefill-attention.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Form: GQA by broadcast-add of zeros and reshape, K^T by tosa.transpose, scale by a [1,1,1,1]
//  constant, HF padding mask (1 - cast(mask_i64)) * -1e4 as [1,1,1,S], keepdim
//  reduce_max/reduce_sum, reciprocal + mul
// Edits: the attention of @subgraph0 cut out (from the head split %36 to the head merge %99): the
//  q/k/v projections %23/%29/%35 and the attention mask %arg6 are arguments, %99 the result; the
//  rtclock/record_timing instrumentation and section comments removed; 12 query heads -> 6, 2
//  key/value heads kept (group 6 -> 3), sequence 40 -> 13, head dim 128 -> 16 (tensor types and
//  tosa.const_shape values); the scale 0.0883883461 (1/sqrt(128)) and the -1e4 mask constant kept;
//  after conversion, the dead tosa.const_shape ops (operands of the converted tosa.reshape ops)
//  deleted.
// Semantics: GQA: 6 query heads, 2 key/value heads (query head h reads kv head h / 3, K/V repeated
//  by reshape + add of a zero [1,2,3,S,D] constant); scores * 0.0883883461 + (1 - float(mask)) *
//  -1e4 with the i64 attention mask [1,S]; result [1,S,H*D].

// CHECK-LABEL: func.func @buddy_gqa_prefill_attention(
// CHECK-NOT: math.exp
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}}, %{{[^,:]*}} :{{.*}}{{.*}} scale({{(0\.0883883|8\.83883)[0-9]*(e-02)?}})
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
func.func @buddy_gqa_prefill_attention(%arg0: tensor<1x13x96xf32>, %arg1: tensor<1x13x32xf32>, %arg2: tensor<1x13x32xf32>, %arg3: tensor<1x13xi64>) -> tensor<1x13x96xf32> {
  %expanded = tensor.expand_shape %arg0 [[0], [1], [2, 3]] output_shape [1, 13, 6, 16] : tensor<1x13x96xf32> into tensor<1x13x6x16xf32>
  %1 = tensor.empty() : tensor<1x6x13x16xf32>
  %transposed = linalg.transpose ins(%expanded : tensor<1x13x6x16xf32>) outs(%1 : tensor<1x6x13x16xf32>) permutation = [0, 2, 1, 3] 
  %expanded_0 = tensor.expand_shape %arg1 [[0], [1], [2, 3]] output_shape [1, 13, 2, 16] : tensor<1x13x32xf32> into tensor<1x13x2x16xf32>
  %3 = tensor.empty() : tensor<1x2x13x16xf32>
  %transposed_1 = linalg.transpose ins(%expanded_0 : tensor<1x13x2x16xf32>) outs(%3 : tensor<1x2x13x16xf32>) permutation = [0, 2, 1, 3] 
  %expanded_2 = tensor.expand_shape %arg2 [[0], [1], [2, 3]] output_shape [1, 13, 2, 16] : tensor<1x13x32xf32> into tensor<1x13x2x16xf32>
  %5 = tensor.empty() : tensor<1x2x13x16xf32>
  %transposed_3 = linalg.transpose ins(%expanded_2 : tensor<1x13x2x16xf32>) outs(%5 : tensor<1x2x13x16xf32>) permutation = [0, 2, 1, 3] 
  %expanded_4 = tensor.expand_shape %transposed_1 [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 13, 16] : tensor<1x2x13x16xf32> into tensor<1x2x1x13x16xf32>
  %cst = arith.constant dense<0.000000e+00> : tensor<1x2x3x13x16xf32>
  %7 = tensor.empty() : tensor<1x2x3x13x16xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded_4, %cst : tensor<1x2x1x13x16xf32>, tensor<1x2x3x13x16xf32>) outs(%7 : tensor<1x2x3x13x16xf32>) {
  ^bb0(%in: f32, %in_37: f32, %out: f32):
    %54 = arith.addf %in, %in_37 : f32
    linalg.yield %54 : f32
  } -> tensor<1x2x3x13x16xf32>
  %collapsed = tensor.collapse_shape %8 [[0], [1, 2], [3], [4]] : tensor<1x2x3x13x16xf32> into tensor<1x6x13x16xf32>
  %expanded_5 = tensor.expand_shape %transposed_3 [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 13, 16] : tensor<1x2x13x16xf32> into tensor<1x2x1x13x16xf32>
  %cst_6 = arith.constant dense<0.000000e+00> : tensor<1x2x3x13x16xf32>
  %11 = tensor.empty() : tensor<1x2x3x13x16xf32>
  %12 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded_5, %cst_6 : tensor<1x2x1x13x16xf32>, tensor<1x2x3x13x16xf32>) outs(%11 : tensor<1x2x3x13x16xf32>) {
  ^bb0(%in: f32, %in_37: f32, %out: f32):
    %54 = arith.addf %in, %in_37 : f32
    linalg.yield %54 : f32
  } -> tensor<1x2x3x13x16xf32>
  %collapsed_7 = tensor.collapse_shape %12 [[0], [1, 2], [3], [4]] : tensor<1x2x3x13x16xf32> into tensor<1x6x13x16xf32>
  %14 = tensor.empty() : tensor<1x6x16x13xf32>
  %transposed_8 = linalg.transpose ins(%collapsed : tensor<1x6x13x16xf32>) outs(%14 : tensor<1x6x16x13xf32>) permutation = [0, 1, 3, 2] 
  %collapsed_9 = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<1x6x13x16xf32> into tensor<6x13x16xf32>
  %collapsed_10 = tensor.collapse_shape %transposed_8 [[0, 1], [2], [3]] : tensor<1x6x16x13xf32> into tensor<6x16x13xf32>
  %cst_11 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_12 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_13 = arith.constant 0.000000e+00 : f32
  %17 = tensor.empty() : tensor<6x13x13xf32>
  %18 = linalg.fill ins(%cst_13 : f32) outs(%17 : tensor<6x13x13xf32>) -> tensor<6x13x13xf32>
  %19 = linalg.batch_matmul ins(%collapsed_9, %collapsed_10 : tensor<6x13x16xf32>, tensor<6x16x13xf32>) outs(%18 : tensor<6x13x13xf32>) -> tensor<6x13x13xf32>
  %expanded_14 = tensor.expand_shape %19 [[0, 1], [2], [3]] output_shape [1, 6, 13, 13] : tensor<6x13x13xf32> into tensor<1x6x13x13xf32>
  %cst_15 = arith.constant dense<0.0883883461> : tensor<1xf32>
  %cst_16 = arith.constant dense<0.0883883461> : tensor<1x1x1x1xf32>
  %cst_17 = arith.constant dense<0> : tensor<1xi8>
  %22 = tensor.empty() : tensor<1x6x13x13xf32>
  %23 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_14, %cst_16 : tensor<1x6x13x13xf32>, tensor<1x1x1x1xf32>) outs(%22 : tensor<1x6x13x13xf32>) {
  ^bb0(%in: f32, %in_37: f32, %out: f32):
    %54 = arith.mulf %in, %in_37 : f32
    linalg.yield %54 : f32
  } -> tensor<1x6x13x13xf32>
  %expanded_18 = tensor.expand_shape %arg3 [[0, 1, 2], [3]] output_shape [1, 1, 1, 13] : tensor<1x13xi64> into tensor<1x1x1x13xi64>
  %25 = tensor.empty() : tensor<1x1x1x13xf32>
  %26 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_18 : tensor<1x1x1x13xi64>) outs(%25 : tensor<1x1x1x13xf32>) {
  ^bb0(%in: i64, %out: f32):
    %54 = arith.sitofp %in : i64 to f32
    linalg.yield %54 : f32
  } -> tensor<1x1x1x13xf32>
  %cst_19 = arith.constant dense<1.000000e+00> : tensor<1x1x1x13xf32>
  %27 = tensor.empty() : tensor<1x1x1x13xf32>
  %28 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_19, %26 : tensor<1x1x1x13xf32>, tensor<1x1x1x13xf32>) outs(%27 : tensor<1x1x1x13xf32>) {
  ^bb0(%in: f32, %in_37: f32, %out: f32):
    %54 = arith.subf %in, %in_37 : f32
    linalg.yield %54 : f32
  } -> tensor<1x1x1x13xf32>
  %cst_20 = arith.constant dense<-1.000000e+04> : tensor<1xf32>
  %cst_21 = arith.constant dense<-1.000000e+04> : tensor<1x1x1x1xf32>
  %cst_22 = arith.constant dense<0> : tensor<1xi8>
  %30 = tensor.empty() : tensor<1x1x1x13xf32>
  %31 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%28, %cst_21 : tensor<1x1x1x13xf32>, tensor<1x1x1x1xf32>) outs(%30 : tensor<1x1x1x13xf32>) {
  ^bb0(%in: f32, %in_37: f32, %out: f32):
    %54 = arith.mulf %in, %in_37 : f32
    linalg.yield %54 : f32
  } -> tensor<1x1x1x13xf32>
  %32 = tensor.empty() : tensor<1x6x13x13xf32>
  %33 = linalg.generic {indexing_maps = [#map2, #map5, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %31 : tensor<1x6x13x13xf32>, tensor<1x1x1x13xf32>) outs(%32 : tensor<1x6x13x13xf32>) {
  ^bb0(%in: f32, %in_37: f32, %out: f32):
    %54 = arith.addf %in, %in_37 : f32
    linalg.yield %54 : f32
  } -> tensor<1x6x13x13xf32>
  %34 = tensor.empty() : tensor<1x6x13xf32>
  %cst_23 = arith.constant -3.40282347E+38 : f32
  %35 = linalg.fill ins(%cst_23 : f32) outs(%34 : tensor<1x6x13xf32>) -> tensor<1x6x13xf32>
  %reduced = linalg.reduce ins(%33 : tensor<1x6x13x13xf32>) outs(%35 : tensor<1x6x13xf32>) dimensions = [3] 
    (%in: f32, %init: f32) {
      %54 = arith.maximumf %in, %init : f32
      linalg.yield %54 : f32
    }
  %expanded_24 = tensor.expand_shape %reduced [[0], [1], [2, 3]] output_shape [1, 6, 13, 1] : tensor<1x6x13xf32> into tensor<1x6x13x1xf32>
  %36 = tensor.empty() : tensor<1x6x13x13xf32>
  %37 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%33, %expanded_24 : tensor<1x6x13x13xf32>, tensor<1x6x13x1xf32>) outs(%36 : tensor<1x6x13x13xf32>) {
  ^bb0(%in: f32, %in_37: f32, %out: f32):
    %54 = arith.subf %in, %in_37 : f32
    linalg.yield %54 : f32
  } -> tensor<1x6x13x13xf32>
  %38 = tensor.empty() : tensor<1x6x13x13xf32>
  %39 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%37 : tensor<1x6x13x13xf32>) outs(%38 : tensor<1x6x13x13xf32>) {
  ^bb0(%in: f32, %out: f32):
    %54 = math.exp %in : f32
    linalg.yield %54 : f32
  } -> tensor<1x6x13x13xf32>
  %40 = tensor.empty() : tensor<1x6x13xf32>
  %cst_25 = arith.constant 0.000000e+00 : f32
  %41 = linalg.fill ins(%cst_25 : f32) outs(%40 : tensor<1x6x13xf32>) -> tensor<1x6x13xf32>
  %reduced_26 = linalg.reduce ins(%39 : tensor<1x6x13x13xf32>) outs(%41 : tensor<1x6x13xf32>) dimensions = [3] 
    (%in: f32, %init: f32) {
      %54 = arith.addf %in, %init : f32
      linalg.yield %54 : f32
    }
  %expanded_27 = tensor.expand_shape %reduced_26 [[0], [1], [2, 3]] output_shape [1, 6, 13, 1] : tensor<1x6x13xf32> into tensor<1x6x13x1xf32>
  %cst_28 = arith.constant dense<0> : tensor<1xi8>
  %42 = tensor.empty() : tensor<1x6x13x1xf32>
  %43 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_27 : tensor<1x6x13x1xf32>) outs(%42 : tensor<1x6x13x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %cst_37 = arith.constant 1.000000e+00 : f32
    %54 = arith.divf %cst_37, %in : f32
    linalg.yield %54 : f32
  } -> tensor<1x6x13x1xf32>
  %44 = tensor.empty() : tensor<1x6x13x13xf32>
  %45 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39, %43 : tensor<1x6x13x13xf32>, tensor<1x6x13x1xf32>) outs(%44 : tensor<1x6x13x13xf32>) {
  ^bb0(%in: f32, %in_37: f32, %out: f32):
    %54 = arith.mulf %in, %in_37 : f32
    linalg.yield %54 : f32
  } -> tensor<1x6x13x13xf32>
  %collapsed_29 = tensor.collapse_shape %45 [[0, 1], [2], [3]] : tensor<1x6x13x13xf32> into tensor<6x13x13xf32>
  %collapsed_30 = tensor.collapse_shape %12 [[0, 1, 2], [3], [4]] : tensor<1x2x3x13x16xf32> into tensor<6x13x16xf32>
  %cst_31 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_32 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_33 = arith.constant 0.000000e+00 : f32
  %48 = tensor.empty() : tensor<6x13x16xf32>
  %49 = linalg.fill ins(%cst_33 : f32) outs(%48 : tensor<6x13x16xf32>) -> tensor<6x13x16xf32>
  %50 = linalg.batch_matmul ins(%collapsed_29, %collapsed_30 : tensor<6x13x13xf32>, tensor<6x13x16xf32>) outs(%49 : tensor<6x13x16xf32>) -> tensor<6x13x16xf32>
  %expanded_34 = tensor.expand_shape %50 [[0, 1], [2], [3]] output_shape [1, 6, 13, 16] : tensor<6x13x16xf32> into tensor<1x6x13x16xf32>
  %52 = tensor.empty() : tensor<1x13x6x16xf32>
  %transposed_35 = linalg.transpose ins(%expanded_34 : tensor<1x6x13x16xf32>) outs(%52 : tensor<1x13x6x16xf32>) permutation = [0, 2, 1, 3] 
  %collapsed_36 = tensor.collapse_shape %transposed_35 [[0], [1], [2, 3]] : tensor<1x13x6x16xf32> into tensor<1x13x96xf32>
  return %collapsed_36 : tensor<1x13x96xf32>
}
