// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: buddy-compiler/buddy-mlir@335ac7ad4d3a3adc203e52fad5d8bca9aad46afd:examples/BuddyStableDiffusion/subgraph_text_encoder.mlir (subgraph0: the causal and padding masks %12 .. %34 and the first CLIP self-attention %64 .. %128)
// Converted from Inputs/buddy-tosa-clip-text-attention.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Producer: buddy-mlir's TorchDynamo frontend (torch -> TOSA + linalg) on Stable Diffusion 2's CLIP
//  text encoder (HF CLIPAttention), then MLIR 22 tosa-to-linalg.
// Form: the scale is applied to Q BEFORE the matmul (HF CLIP: q_proj(x) * head_dim^-0.5, here a
//  broadcasting mulf by 0.125 on the [1,S,H*D] projection); heads split by reshape and transposes,
//  K^T by a transpose, batch_matmul on [H,S,D]; two additive masks: the causal mask select(j < i+1,
//  0, -FLT_MAX) built from an arange by a cmpi generic, and the padding mask select(bool(1 - m),
//  -FLT_MAX, 1 - m) of the i64 attention_mask; tosa-to-linalg softmax (linalg.reduce, reciprocal as
//  divf(1.0, sum) with the 1.0 inside the body, mulf); P.V by batch_matmul; output transposed back
//  to [1,S,H*D].
// Edits: the masks and the first self-attention of @subgraph0 cut out: the attention_mask %arg4
//  (i64 [1, S]), the query projection %63 (before its scaling), the key and value projections %75
//  and %89 ([1, S, H*D], bias added) are arguments, %128 the result; the projections' matmuls
//  dropped; renamed; sequence 12 -> 13 (the arange constant of the causal mask extended to 0 .. 12),
//  16 heads -> 3, head dim 64 -> 16 (hidden 1024 -> 48), the scale 0.125 (1/sqrt(64)) kept; TOSA
//  syntax brought to MLIR 22: tosa.const value -> values, tosa.reshape new_shape attribute -> a
//  tosa.const_shape operand, tosa.mul's shift attribute -> a tensor<1xi8> operand, tosa.transpose's
//  perms constant -> its perms attribute (the constants dropped), tosa.matmul given its zero-point
//  operands; after conversion, the dead tosa.const_shape ops deleted.
// Semantics: softmax(0.125 * Q K^T + causal + (1 - m) * -FLT_MAX) V per head: Q (%63), K (%75), V
//  (%89) [1, S, H*D] split into 3 heads of 16, the causal mask hides keys j > i, m the i64 attention
//  mask [1, S] hides padded keys (a raise may carry the causal part as causal or inside the mask
//  operand); result [1, S, H*D].

// CHECK-LABEL: func.func @buddy_tosa_clip_text_attention(
// CHECK-NOT: math.exp
// The 0.125 is applied to Q by the graph's own multiply, behind the head
// reshapes; softmax-raise keeps that multiply (an exact equivalent) and gives
// the op scale 1, or folds it into the op's scale.
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}}, %{{[^,:]*}} :{{.*}} scale({{1.000000e\+00|1.250000e-01}})
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map6 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map7 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map8 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map9 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @buddy_tosa_clip_text_attention(%arg0: tensor<1x13xi64>, %arg1: tensor<1x13x48xf32>, %arg2: tensor<1x13x48xf32>, %arg3: tensor<1x13x48xf32>) -> tensor<1x13x48xf32> {
  %cst = arith.constant dense<-3.40282347E+38> : tensor<13x13xf32>
  %cst_0 = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]> : tensor<13xi64>
  %cst_1 = arith.constant dense<1> : tensor<13xi64>
  %0 = tensor.empty() : tensor<13xi64>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%cst_0, %cst_1 : tensor<13xi64>, tensor<13xi64>) outs(%0 : tensor<13xi64>) {
  ^bb0(%in: i64, %in_39: i64, %out: i64):
    %62 = arith.addi %in, %in_39 : i64
    linalg.yield %62 : i64
  } -> tensor<13xi64>
  %expanded = tensor.expand_shape %1 [[0, 1]] output_shape [13, 1] : tensor<13xi64> into tensor<13x1xi64>
  %3 = tensor.empty() : tensor<13x13xi1>
  %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%cst_0, %expanded : tensor<13xi64>, tensor<13x1xi64>) outs(%3 : tensor<13x13xi1>) {
  ^bb0(%in: i64, %in_39: i64, %out: i1):
    %62 = arith.cmpi slt, %in, %in_39 : i64
    linalg.yield %62 : i1
  } -> tensor<13x13xi1>
  %cst_2 = arith.constant 0.000000e+00 : f32
  %5 = tensor.empty() : tensor<13x13xf32>
  %6 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%4, %cst : tensor<13x13xi1>, tensor<13x13xf32>) outs(%5 : tensor<13x13xf32>) {
  ^bb0(%in: i1, %in_39: f32, %out: f32):
    %62 = arith.select %in, %cst_2, %in_39 : f32
    linalg.yield %62 : f32
  } -> tensor<13x13xf32>
  %expanded_3 = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [1, 1, 13] : tensor<1x13xi64> into tensor<1x1x13xi64>
  %expanded_4 = tensor.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 1, 1, 13] : tensor<1x13xi64> into tensor<1x1x1x13xi64>
  %cst_5 = arith.constant dense<0> : tensor<1x1x13x13xi64>
  %9 = tensor.empty() : tensor<1x1x13x13xi64>
  %10 = linalg.generic {indexing_maps = [#map5, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_4, %cst_5 : tensor<1x1x1x13xi64>, tensor<1x1x13x13xi64>) outs(%9 : tensor<1x1x13x13xi64>) {
  ^bb0(%in: i64, %in_39: i64, %out: i64):
    %62 = arith.addi %in, %in_39 : i64
    linalg.yield %62 : i64
  } -> tensor<1x1x13x13xi64>
  %11 = tensor.empty() : tensor<1x1x13x13xf32>
  %12 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x1x13x13xi64>) outs(%11 : tensor<1x1x13x13xf32>) {
  ^bb0(%in: i64, %out: f32):
    %62 = arith.sitofp %in : i64 to f32
    linalg.yield %62 : f32
  } -> tensor<1x1x13x13xf32>
  %cst_6 = arith.constant dense<1.000000e+00> : tensor<1x1x13x13xf32>
  %13 = tensor.empty() : tensor<1x1x13x13xf32>
  %14 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_6, %12 : tensor<1x1x13x13xf32>, tensor<1x1x13x13xf32>) outs(%13 : tensor<1x1x13x13xf32>) {
  ^bb0(%in: f32, %in_39: f32, %out: f32):
    %62 = arith.subf %in, %in_39 : f32
    linalg.yield %62 : f32
  } -> tensor<1x1x13x13xf32>
  %15 = tensor.empty() : tensor<1x1x13x13xi1>
  %16 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<1x1x13x13xf32>) outs(%15 : tensor<1x1x13x13xi1>) {
  ^bb0(%in: f32, %out: i1):
    %cst_39 = arith.constant 0.000000e+00 : f32
    %62 = arith.cmpf une, %in, %cst_39 : f32
    linalg.yield %62 : i1
  } -> tensor<1x1x13x13xi1>
  %cst_7 = arith.constant -3.40282347E+38 : f32
  %17 = tensor.empty() : tensor<1x1x13x13xf32>
  %18 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %14 : tensor<1x1x13x13xi1>, tensor<1x1x13x13xf32>) outs(%17 : tensor<1x1x13x13xf32>) {
  ^bb0(%in: i1, %in_39: f32, %out: f32):
    %62 = arith.select %in, %cst_7, %in_39 : f32
    linalg.yield %62 : f32
  } -> tensor<1x1x13x13xf32>
  %cst_8 = arith.constant dense<1.250000e-01> : tensor<1x13x48xf32>
  %cst_9 = arith.constant dense<0> : tensor<1xi8>
  %19 = tensor.empty() : tensor<1x13x48xf32>
  %20 = linalg.generic {indexing_maps = [#map7, #map7, #map7], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %cst_8 : tensor<1x13x48xf32>, tensor<1x13x48xf32>) outs(%19 : tensor<1x13x48xf32>) {
  ^bb0(%in: f32, %in_39: f32, %out: f32):
    %62 = arith.mulf %in, %in_39 : f32
    linalg.yield %62 : f32
  } -> tensor<1x13x48xf32>
  %expanded_10 = tensor.expand_shape %arg2 [[0], [1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<1x13x48xf32> into tensor<1x13x3x16xf32>
  %22 = tensor.empty() : tensor<1x3x13x16xf32>
  %transposed = linalg.transpose ins(%expanded_10 : tensor<1x13x3x16xf32>) outs(%22 : tensor<1x3x13x16xf32>) permutation = [0, 2, 1, 3] 
  %expanded_11 = tensor.expand_shape %arg3 [[0], [1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<1x13x48xf32> into tensor<1x13x3x16xf32>
  %24 = tensor.empty() : tensor<1x3x13x16xf32>
  %transposed_12 = linalg.transpose ins(%expanded_11 : tensor<1x13x3x16xf32>) outs(%24 : tensor<1x3x13x16xf32>) permutation = [0, 2, 1, 3] 
  %expanded_13 = tensor.expand_shape %20 [[0], [1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<1x13x48xf32> into tensor<1x13x3x16xf32>
  %26 = tensor.empty() : tensor<1x3x13x16xf32>
  %transposed_14 = linalg.transpose ins(%expanded_13 : tensor<1x13x3x16xf32>) outs(%26 : tensor<1x3x13x16xf32>) permutation = [0, 2, 1, 3] 
  %collapsed = tensor.collapse_shape %transposed_14 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
  %collapsed_15 = tensor.collapse_shape %transposed [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
  %collapsed_16 = tensor.collapse_shape %transposed_12 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
  %30 = tensor.empty() : tensor<3x16x13xf32>
  %transposed_17 = linalg.transpose ins(%collapsed_15 : tensor<3x13x16xf32>) outs(%30 : tensor<3x16x13xf32>) permutation = [0, 2, 1] 
  %cst_18 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_19 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_20 = arith.constant 0.000000e+00 : f32
  %31 = tensor.empty() : tensor<3x13x13xf32>
  %32 = linalg.fill ins(%cst_20 : f32) outs(%31 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
  %33 = linalg.batch_matmul ins(%collapsed, %transposed_17 : tensor<3x13x16xf32>, tensor<3x16x13xf32>) outs(%32 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
  %expanded_21 = tensor.expand_shape %33 [[0, 1], [2], [3]] output_shape [1, 3, 13, 13] : tensor<3x13x13xf32> into tensor<1x3x13x13xf32>
  %expanded_22 = tensor.expand_shape %6 [[0, 1], [2]] output_shape [1, 13, 13] : tensor<13x13xf32> into tensor<1x13x13xf32>
  %expanded_23 = tensor.expand_shape %6 [[0, 1, 2], [3]] output_shape [1, 1, 13, 13] : tensor<13x13xf32> into tensor<1x1x13x13xf32>
  %cst_24 = arith.constant dense<0.000000e+00> : tensor<1x1x13x13xf32>
  %37 = tensor.empty() : tensor<1x3x13x13xf32>
  %38 = linalg.generic {indexing_maps = [#map6, #map8, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_21, %expanded_23 : tensor<1x3x13x13xf32>, tensor<1x1x13x13xf32>) outs(%37 : tensor<1x3x13x13xf32>) {
  ^bb0(%in: f32, %in_39: f32, %out: f32):
    %62 = arith.addf %in, %in_39 : f32
    linalg.yield %62 : f32
  } -> tensor<1x3x13x13xf32>
  %collapsed_25 = tensor.collapse_shape %38 [[0, 1], [2], [3]] : tensor<1x3x13x13xf32> into tensor<3x13x13xf32>
  %41 = tensor.empty() : tensor<1x3x13x13xf32>
  %42 = linalg.generic {indexing_maps = [#map6, #map8, #map6], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%38, %18 : tensor<1x3x13x13xf32>, tensor<1x1x13x13xf32>) outs(%41 : tensor<1x3x13x13xf32>) {
  ^bb0(%in: f32, %in_39: f32, %out: f32):
    %62 = arith.addf %in, %in_39 : f32
    linalg.yield %62 : f32
  } -> tensor<1x3x13x13xf32>
  %collapsed_26 = tensor.collapse_shape %42 [[0, 1], [2], [3]] : tensor<1x3x13x13xf32> into tensor<3x13x13xf32>
  %44 = tensor.empty() : tensor<3x13xf32>
  %cst_27 = arith.constant -3.40282347E+38 : f32
  %45 = linalg.fill ins(%cst_27 : f32) outs(%44 : tensor<3x13xf32>) -> tensor<3x13xf32>
  %reduced = linalg.reduce ins(%collapsed_26 : tensor<3x13x13xf32>) outs(%45 : tensor<3x13xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %62 = arith.maximumf %in, %init : f32
      linalg.yield %62 : f32
    }
  %expanded_28 = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [3, 13, 1] : tensor<3x13xf32> into tensor<3x13x1xf32>
  %46 = tensor.empty() : tensor<3x13x13xf32>
  %47 = linalg.generic {indexing_maps = [#map7, #map9, #map7], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed_26, %expanded_28 : tensor<3x13x13xf32>, tensor<3x13x1xf32>) outs(%46 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %in_39: f32, %out: f32):
    %62 = arith.subf %in, %in_39 : f32
    linalg.yield %62 : f32
  } -> tensor<3x13x13xf32>
  %48 = tensor.empty() : tensor<3x13x13xf32>
  %49 = linalg.generic {indexing_maps = [#map7, #map7], iterator_types = ["parallel", "parallel", "parallel"]} ins(%47 : tensor<3x13x13xf32>) outs(%48 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %out: f32):
    %62 = math.exp %in : f32
    linalg.yield %62 : f32
  } -> tensor<3x13x13xf32>
  %50 = tensor.empty() : tensor<3x13xf32>
  %cst_29 = arith.constant 0.000000e+00 : f32
  %51 = linalg.fill ins(%cst_29 : f32) outs(%50 : tensor<3x13xf32>) -> tensor<3x13xf32>
  %reduced_30 = linalg.reduce ins(%49 : tensor<3x13x13xf32>) outs(%51 : tensor<3x13xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %62 = arith.addf %in, %init : f32
      linalg.yield %62 : f32
    }
  %expanded_31 = tensor.expand_shape %reduced_30 [[0], [1, 2]] output_shape [3, 13, 1] : tensor<3x13xf32> into tensor<3x13x1xf32>
  %52 = tensor.empty() : tensor<3x13x1xf32>
  %53 = linalg.generic {indexing_maps = [#map7, #map7], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_31 : tensor<3x13x1xf32>) outs(%52 : tensor<3x13x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %cst_39 = arith.constant 1.000000e+00 : f32
    %62 = arith.divf %cst_39, %in : f32
    linalg.yield %62 : f32
  } -> tensor<3x13x1xf32>
  %cst_32 = arith.constant dense<0> : tensor<1xi8>
  %54 = tensor.empty() : tensor<3x13x13xf32>
  %55 = linalg.generic {indexing_maps = [#map7, #map9, #map7], iterator_types = ["parallel", "parallel", "parallel"]} ins(%49, %53 : tensor<3x13x13xf32>, tensor<3x13x1xf32>) outs(%54 : tensor<3x13x13xf32>) {
  ^bb0(%in: f32, %in_39: f32, %out: f32):
    %62 = arith.mulf %in, %in_39 : f32
    linalg.yield %62 : f32
  } -> tensor<3x13x13xf32>
  %cst_33 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_34 = arith.constant dense<0.000000e+00> : tensor<1xf32>
  %cst_35 = arith.constant 0.000000e+00 : f32
  %56 = tensor.empty() : tensor<3x13x16xf32>
  %57 = linalg.fill ins(%cst_35 : f32) outs(%56 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
  %58 = linalg.batch_matmul ins(%55, %collapsed_16 : tensor<3x13x13xf32>, tensor<3x13x16xf32>) outs(%57 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
  %expanded_36 = tensor.expand_shape %58 [[0, 1], [2], [3]] output_shape [1, 3, 13, 16] : tensor<3x13x16xf32> into tensor<1x3x13x16xf32>
  %60 = tensor.empty() : tensor<1x13x3x16xf32>
  %transposed_37 = linalg.transpose ins(%expanded_36 : tensor<1x3x13x16xf32>) outs(%60 : tensor<1x13x3x16xf32>) permutation = [0, 2, 1, 3] 
  %collapsed_38 = tensor.collapse_shape %transposed_37 [[0], [1], [2, 3]] : tensor<1x13x3x16xf32> into tensor<1x13x48xf32>
  return %collapsed_38 : tensor<1x13x48xf32>
}
