// RUN: softmax-opt %s --softmax-raise --split-input-file | FileCheck %s
// RUN: softmax-opt %s --softmax-raise="remarks=true" --split-input-file -verify-diagnostics -o /dev/null
//
// Near misses of the linear cross-entropy raising: each function is
// Raise/Corpus/torch-mlir-linear-cross-entropy-mean.mlir (torch-mlir's
// F.cross_entropy(h @ W.T + b, t); origin in that file) with one edit that
// changes what it computes, named above it. None becomes a
// softmax.linear_cross_entropy of the whole (its log_softmax is still
// raised); where the edit is past a sum of losses, the sum is one. With
// remarks, each gather of log-probabilities left over says why.

// The mask keeps the ignored tokens (t == -100): not a cross-entropy over the kept ones.
// CHECK-LABEL: func.func @keeps_ignored(
// CHECK-NOT: softmax.linear_cross_entropy
// CHECK: softmax.log_softmax
// CHECK-NOT: softmax.linear_cross_entropy
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> (d0)>
#map5 = affine_map<(d0) -> ()>
#map6 = affine_map<() -> ()>
func.func @keeps_ignored(%6: tensor<4x6xf32>, %cst_0: tensor<37x6xf32>, %cst: tensor<37xf32>, %arg1: tensor<4xi64>) -> tensor<f32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %7 = tensor.empty() : tensor<6x37xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<37x6xf32>) outs(%7 : tensor<6x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<6x37xf32>
    %9 = tensor.empty() : tensor<4x37xf32>
    %10 = linalg.fill ins(%cst_3 : f32) outs(%9 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %11 = linalg.matmul ins(%6, %8 : tensor<4x6xf32>, tensor<6x37xf32>) outs(%10 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %cst : tensor<4x37xf32>, tensor<37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %14 = tensor.empty() : tensor<4x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<4x1xi64>) -> tensor<4x1xi64>
    %16 = tensor.empty() : tensor<4x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%12 : tensor<4x37xf32>) outs(%17, %15 : tensor<4x1xf32>, tensor<4x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<4x1xf32>, tensor<4x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %18#0 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<4x37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<4x37xf32>) outs(%21 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4x1xf32>) outs(%16 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %cst_n = arith.constant dense<0> : tensor<i64>
    %cst_n0 = arith.constant 0.000000e+00 : f32
    %c37 = arith.constant 37 : index
    %c0_i64_n = arith.constant 0 : i64
    %c-100_i64 = arith.constant -100 : i64
    %n0 = tensor.empty() : tensor<4xi1>
    %n1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%arg1 : tensor<4xi64>) outs(%n0 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi eq, %in, %c-100_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<4xi1>
    %n2 = tensor.empty() : tensor<4xi64>
    %n3 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %arg1, %cst_n : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%n2 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %y19 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %y19 : i64
    } -> tensor<4xi64>
    %expanded = tensor.expand_shape %n3 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %n4 = tensor.empty() : tensor<4x1xf32>
    %n5 = linalg.fill ins(%cst_n0 : f32) outs(%n4 : tensor<4x1xf32>) -> tensor<4x1xf32>
    // expected-remark @+1 {{softmax-raise: cross-entropy-shaped computation not raised: not select(t != ignore, x, 0)}}
    %n6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<4x1xi64>) outs(%n5 : tensor<4x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = linalg.index 0 : index
      %y20 = arith.index_cast %in : i64 to index
      %y21 = arith.cmpi slt, %y20, %c37 : index
      cf.assert %y21, "index must be smaller than dim size"
      %y22 = arith.cmpi sge, %in, %c0_i64_n : i64
      cf.assert %y22, "index must be larger or equal to 0"
      %extracted = tensor.extract %24[%y19, %y20] : tensor<4x37xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x1xf32>
    %collapsed = tensor.collapse_shape %n6 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %n7 = tensor.empty() : tensor<4xf32>
    %n8 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%collapsed : tensor<4xf32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.negf %in : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n9 = tensor.empty() : tensor<f32>
    %n10 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%cst_n : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n11 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %n8, %n10 : tensor<4xi1>, tensor<4xf32>, tensor<f32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %y19 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n12 = tensor.empty() : tensor<i64>
    %n13 = linalg.fill ins(%c0_i64_n : i64) outs(%n12 : tensor<i64>) -> tensor<i64>
    %n14 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n1 : tensor<4xi1>) outs(%n13 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %y19 = arith.extui %in : i1 to i64
      %y20 = arith.addi %y19, %out : i64
      linalg.yield %y20 : i64
    } -> tensor<i64>
    %n15 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%n14 : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n16 = linalg.fill ins(%cst_n0 : f32) outs(%n9 : tensor<f32>) -> tensor<f32>
    %n17 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n11 : tensor<4xf32>) outs(%n16 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.addf %in, %out : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n18 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = []} ins(%n17, %n15 : tensor<f32>, tensor<f32>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %y19 = arith.divf %in, %in_1 : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    return %n18 : tensor<f32>
}

// -----

// The mean divides by the token count (4.0), not by the count of kept tokens: the sum is a
// cross-entropy (raised with reduction(sum)), the division stays.
// CHECK-LABEL: func.func @mean_over_all(
// CHECK: softmax.linear_cross_entropy {{.*}} reduction(sum)
// CHECK: arith.divf
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> (d0)>
#map5 = affine_map<(d0) -> ()>
#map6 = affine_map<() -> ()>
func.func @mean_over_all(%6: tensor<4x6xf32>, %cst_0: tensor<37x6xf32>, %cst: tensor<37xf32>, %arg1: tensor<4xi64>) -> tensor<f32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %7 = tensor.empty() : tensor<6x37xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<37x6xf32>) outs(%7 : tensor<6x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<6x37xf32>
    %9 = tensor.empty() : tensor<4x37xf32>
    %10 = linalg.fill ins(%cst_3 : f32) outs(%9 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %11 = linalg.matmul ins(%6, %8 : tensor<4x6xf32>, tensor<6x37xf32>) outs(%10 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %cst : tensor<4x37xf32>, tensor<37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %14 = tensor.empty() : tensor<4x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<4x1xi64>) -> tensor<4x1xi64>
    %16 = tensor.empty() : tensor<4x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%12 : tensor<4x37xf32>) outs(%17, %15 : tensor<4x1xf32>, tensor<4x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<4x1xf32>, tensor<4x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %18#0 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<4x37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<4x37xf32>) outs(%21 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4x1xf32>) outs(%16 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %cst_n = arith.constant dense<0> : tensor<i64>
    %cst_n0 = arith.constant 0.000000e+00 : f32
    %c37 = arith.constant 37 : index
    %c0_i64_n = arith.constant 0 : i64
    %c-100_i64 = arith.constant -100 : i64
    %n0 = tensor.empty() : tensor<4xi1>
    %n1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%arg1 : tensor<4xi64>) outs(%n0 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<4xi1>
    %n2 = tensor.empty() : tensor<4xi64>
    %n3 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %arg1, %cst_n : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%n2 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %y19 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %y19 : i64
    } -> tensor<4xi64>
    %expanded = tensor.expand_shape %n3 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %n4 = tensor.empty() : tensor<4x1xf32>
    %n5 = linalg.fill ins(%cst_n0 : f32) outs(%n4 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %n6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<4x1xi64>) outs(%n5 : tensor<4x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = linalg.index 0 : index
      %y20 = arith.index_cast %in : i64 to index
      %y21 = arith.cmpi slt, %y20, %c37 : index
      cf.assert %y21, "index must be smaller than dim size"
      %y22 = arith.cmpi sge, %in, %c0_i64_n : i64
      cf.assert %y22, "index must be larger or equal to 0"
      %extracted = tensor.extract %24[%y19, %y20] : tensor<4x37xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x1xf32>
    %collapsed = tensor.collapse_shape %n6 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %n7 = tensor.empty() : tensor<4xf32>
    %n8 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%collapsed : tensor<4xf32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.negf %in : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n9 = tensor.empty() : tensor<f32>
    %n10 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%cst_n : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n11 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %n8, %n10 : tensor<4xi1>, tensor<4xf32>, tensor<f32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %y19 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n12 = tensor.empty() : tensor<i64>
    %n13 = linalg.fill ins(%c0_i64_n : i64) outs(%n12 : tensor<i64>) -> tensor<i64>
    %n14 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n1 : tensor<4xi1>) outs(%n13 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %y19 = arith.extui %in : i1 to i64
      %y20 = arith.addi %y19, %out : i64
      linalg.yield %y20 : i64
    } -> tensor<i64>
    %n15 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%n14 : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n16 = linalg.fill ins(%cst_n0 : f32) outs(%n9 : tensor<f32>) -> tensor<f32>
    %n17 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n11 : tensor<4xf32>) outs(%n16 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.addf %in, %out : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n18 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = []} ins(%n17, %n15 : tensor<f32>, tensor<f32>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %four = arith.constant 4.0 : f32
      %y19 = arith.divf %in, %four : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    return %n18 : tensor<f32>
}

// -----

// The gather reads token 0's log-probabilities for every token.
// CHECK-LABEL: func.func @gathers_row_zero(
// CHECK-NOT: softmax.linear_cross_entropy
// CHECK: softmax.log_softmax
// CHECK-NOT: softmax.linear_cross_entropy
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> (d0)>
#map5 = affine_map<(d0) -> ()>
#map6 = affine_map<() -> ()>
func.func @gathers_row_zero(%6: tensor<4x6xf32>, %cst_0: tensor<37x6xf32>, %cst: tensor<37xf32>, %arg1: tensor<4xi64>) -> tensor<f32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %7 = tensor.empty() : tensor<6x37xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<37x6xf32>) outs(%7 : tensor<6x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<6x37xf32>
    %9 = tensor.empty() : tensor<4x37xf32>
    %10 = linalg.fill ins(%cst_3 : f32) outs(%9 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %11 = linalg.matmul ins(%6, %8 : tensor<4x6xf32>, tensor<6x37xf32>) outs(%10 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %cst : tensor<4x37xf32>, tensor<37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %14 = tensor.empty() : tensor<4x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<4x1xi64>) -> tensor<4x1xi64>
    %16 = tensor.empty() : tensor<4x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%12 : tensor<4x37xf32>) outs(%17, %15 : tensor<4x1xf32>, tensor<4x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<4x1xf32>, tensor<4x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %18#0 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<4x37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<4x37xf32>) outs(%21 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4x1xf32>) outs(%16 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %cst_n = arith.constant dense<0> : tensor<i64>
    %cst_n0 = arith.constant 0.000000e+00 : f32
    %c37 = arith.constant 37 : index
    %c0_i64_n = arith.constant 0 : i64
    %c-100_i64 = arith.constant -100 : i64
    %n0 = tensor.empty() : tensor<4xi1>
    %n1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%arg1 : tensor<4xi64>) outs(%n0 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<4xi1>
    %n2 = tensor.empty() : tensor<4xi64>
    %n3 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %arg1, %cst_n : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%n2 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %y19 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %y19 : i64
    } -> tensor<4xi64>
    %expanded = tensor.expand_shape %n3 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %n4 = tensor.empty() : tensor<4x1xf32>
    %n5 = linalg.fill ins(%cst_n0 : f32) outs(%n4 : tensor<4x1xf32>) -> tensor<4x1xf32>
    // expected-remark @+1 {{softmax-raise: cross-entropy-shaped computation not raised: the gather does not read row n for token n}}
    %n6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<4x1xi64>) outs(%n5 : tensor<4x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.constant 0 : index
      %y20 = arith.index_cast %in : i64 to index
      %y21 = arith.cmpi slt, %y20, %c37 : index
      cf.assert %y21, "index must be smaller than dim size"
      %y22 = arith.cmpi sge, %in, %c0_i64_n : i64
      cf.assert %y22, "index must be larger or equal to 0"
      %extracted = tensor.extract %24[%y19, %y20] : tensor<4x37xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x1xf32>
    %collapsed = tensor.collapse_shape %n6 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %n7 = tensor.empty() : tensor<4xf32>
    %n8 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%collapsed : tensor<4xf32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.negf %in : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n9 = tensor.empty() : tensor<f32>
    %n10 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%cst_n : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n11 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %n8, %n10 : tensor<4xi1>, tensor<4xf32>, tensor<f32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %y19 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n12 = tensor.empty() : tensor<i64>
    %n13 = linalg.fill ins(%c0_i64_n : i64) outs(%n12 : tensor<i64>) -> tensor<i64>
    %n14 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n1 : tensor<4xi1>) outs(%n13 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %y19 = arith.extui %in : i1 to i64
      %y20 = arith.addi %y19, %out : i64
      linalg.yield %y20 : i64
    } -> tensor<i64>
    %n15 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%n14 : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n16 = linalg.fill ins(%cst_n0 : f32) outs(%n9 : tensor<f32>) -> tensor<f32>
    %n17 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n11 : tensor<4xf32>) outs(%n16 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.addf %in, %out : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n18 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = []} ins(%n17, %n15 : tensor<f32>, tensor<f32>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %y19 = arith.divf %in, %in_1 : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    return %n18 : tensor<f32>
}

// -----

// The loss adds the log-probability twice instead of negating it.
// CHECK-LABEL: func.func @no_negation(
// CHECK-NOT: softmax.linear_cross_entropy
// CHECK: softmax.log_softmax
// CHECK-NOT: softmax.linear_cross_entropy
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> (d0)>
#map5 = affine_map<(d0) -> ()>
#map6 = affine_map<() -> ()>
func.func @no_negation(%6: tensor<4x6xf32>, %cst_0: tensor<37x6xf32>, %cst: tensor<37xf32>, %arg1: tensor<4xi64>) -> tensor<f32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %7 = tensor.empty() : tensor<6x37xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<37x6xf32>) outs(%7 : tensor<6x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<6x37xf32>
    %9 = tensor.empty() : tensor<4x37xf32>
    %10 = linalg.fill ins(%cst_3 : f32) outs(%9 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %11 = linalg.matmul ins(%6, %8 : tensor<4x6xf32>, tensor<6x37xf32>) outs(%10 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %cst : tensor<4x37xf32>, tensor<37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %14 = tensor.empty() : tensor<4x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<4x1xi64>) -> tensor<4x1xi64>
    %16 = tensor.empty() : tensor<4x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%12 : tensor<4x37xf32>) outs(%17, %15 : tensor<4x1xf32>, tensor<4x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<4x1xf32>, tensor<4x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %18#0 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<4x37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<4x37xf32>) outs(%21 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4x1xf32>) outs(%16 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %cst_n = arith.constant dense<0> : tensor<i64>
    %cst_n0 = arith.constant 0.000000e+00 : f32
    %c37 = arith.constant 37 : index
    %c0_i64_n = arith.constant 0 : i64
    %c-100_i64 = arith.constant -100 : i64
    %n0 = tensor.empty() : tensor<4xi1>
    %n1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%arg1 : tensor<4xi64>) outs(%n0 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<4xi1>
    %n2 = tensor.empty() : tensor<4xi64>
    %n3 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %arg1, %cst_n : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%n2 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %y19 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %y19 : i64
    } -> tensor<4xi64>
    %expanded = tensor.expand_shape %n3 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %n4 = tensor.empty() : tensor<4x1xf32>
    %n5 = linalg.fill ins(%cst_n0 : f32) outs(%n4 : tensor<4x1xf32>) -> tensor<4x1xf32>
    // expected-remark @+1 {{softmax-raise: cross-entropy-shaped computation not raised: the kept loss is not a negation}}
    %n6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<4x1xi64>) outs(%n5 : tensor<4x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = linalg.index 0 : index
      %y20 = arith.index_cast %in : i64 to index
      %y21 = arith.cmpi slt, %y20, %c37 : index
      cf.assert %y21, "index must be smaller than dim size"
      %y22 = arith.cmpi sge, %in, %c0_i64_n : i64
      cf.assert %y22, "index must be larger or equal to 0"
      %extracted = tensor.extract %24[%y19, %y20] : tensor<4x37xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x1xf32>
    %collapsed = tensor.collapse_shape %n6 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %n7 = tensor.empty() : tensor<4xf32>
    %n8 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%collapsed : tensor<4xf32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.addf %in, %in : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n9 = tensor.empty() : tensor<f32>
    %n10 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%cst_n : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n11 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %n8, %n10 : tensor<4xi1>, tensor<4xf32>, tensor<f32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %y19 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n12 = tensor.empty() : tensor<i64>
    %n13 = linalg.fill ins(%c0_i64_n : i64) outs(%n12 : tensor<i64>) -> tensor<i64>
    %n14 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n1 : tensor<4xi1>) outs(%n13 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %y19 = arith.extui %in : i1 to i64
      %y20 = arith.addi %y19, %out : i64
      linalg.yield %y20 : i64
    } -> tensor<i64>
    %n15 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%n14 : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n16 = linalg.fill ins(%cst_n0 : f32) outs(%n9 : tensor<f32>) -> tensor<f32>
    %n17 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n11 : tensor<4xf32>) outs(%n16 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.addf %in, %out : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n18 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = []} ins(%n17, %n15 : tensor<f32>, tensor<f32>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %y19 = arith.divf %in, %in_1 : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    return %n18 : tensor<f32>
}

// -----

// No classifier product: F.cross_entropy of a logits argument stays a log_softmax and an NLL (the fused op needs h and W).
// CHECK-LABEL: func.func @logits_argument(
// CHECK-NOT: softmax.linear_cross_entropy
// CHECK: softmax.log_softmax
// CHECK-NOT: softmax.linear_cross_entropy
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> (d0)>
#map5 = affine_map<(d0) -> ()>
#map6 = affine_map<() -> ()>
func.func @logits_argument(%6: tensor<4x6xf32>, %cst_0: tensor<37x6xf32>, %cst: tensor<37xf32>, %logits: tensor<4x37xf32>, %arg1: tensor<4xi64>) -> tensor<f32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %7 = tensor.empty() : tensor<6x37xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<37x6xf32>) outs(%7 : tensor<6x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<6x37xf32>
    %9 = tensor.empty() : tensor<4x37xf32>
    %10 = linalg.fill ins(%cst_3 : f32) outs(%9 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %11 = linalg.matmul ins(%6, %8 : tensor<4x6xf32>, tensor<6x37xf32>) outs(%10 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %cst : tensor<4x37xf32>, tensor<37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %14 = tensor.empty() : tensor<4x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<4x1xi64>) -> tensor<4x1xi64>
    %16 = tensor.empty() : tensor<4x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%logits : tensor<4x37xf32>) outs(%17, %15 : tensor<4x1xf32>, tensor<4x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<4x1xf32>, tensor<4x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%logits, %18#0 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<4x37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<4x37xf32>) outs(%21 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4x1xf32>) outs(%16 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %cst_n = arith.constant dense<0> : tensor<i64>
    %cst_n0 = arith.constant 0.000000e+00 : f32
    %c37 = arith.constant 37 : index
    %c0_i64_n = arith.constant 0 : i64
    %c-100_i64 = arith.constant -100 : i64
    %n0 = tensor.empty() : tensor<4xi1>
    %n1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%arg1 : tensor<4xi64>) outs(%n0 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<4xi1>
    %n2 = tensor.empty() : tensor<4xi64>
    %n3 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %arg1, %cst_n : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%n2 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %y19 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %y19 : i64
    } -> tensor<4xi64>
    %expanded = tensor.expand_shape %n3 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %n4 = tensor.empty() : tensor<4x1xf32>
    %n5 = linalg.fill ins(%cst_n0 : f32) outs(%n4 : tensor<4x1xf32>) -> tensor<4x1xf32>
    // expected-remark @+1 {{softmax-raise: cross-entropy-shaped computation not raised: the logits are not a product h W^T into a zero init}}
    %n6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<4x1xi64>) outs(%n5 : tensor<4x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = linalg.index 0 : index
      %y20 = arith.index_cast %in : i64 to index
      %y21 = arith.cmpi slt, %y20, %c37 : index
      cf.assert %y21, "index must be smaller than dim size"
      %y22 = arith.cmpi sge, %in, %c0_i64_n : i64
      cf.assert %y22, "index must be larger or equal to 0"
      %extracted = tensor.extract %24[%y19, %y20] : tensor<4x37xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x1xf32>
    %collapsed = tensor.collapse_shape %n6 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %n7 = tensor.empty() : tensor<4xf32>
    %n8 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%collapsed : tensor<4xf32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.negf %in : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n9 = tensor.empty() : tensor<f32>
    %n10 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%cst_n : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n11 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %n8, %n10 : tensor<4xi1>, tensor<4xf32>, tensor<f32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %y19 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n12 = tensor.empty() : tensor<i64>
    %n13 = linalg.fill ins(%c0_i64_n : i64) outs(%n12 : tensor<i64>) -> tensor<i64>
    %n14 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n1 : tensor<4xi1>) outs(%n13 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %y19 = arith.extui %in : i1 to i64
      %y20 = arith.addi %y19, %out : i64
      linalg.yield %y20 : i64
    } -> tensor<i64>
    %n15 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%n14 : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n16 = linalg.fill ins(%cst_n0 : f32) outs(%n9 : tensor<f32>) -> tensor<f32>
    %n17 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n11 : tensor<4xf32>) outs(%n16 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.addf %in, %out : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n18 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = []} ins(%n17, %n15 : tensor<f32>, tensor<f32>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %y19 = arith.divf %in, %in_1 : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    return %n18 : tensor<f32>
}

// -----

// The mean counts the kept tokens of other targets: the sum is raised, the division stays.
// CHECK-LABEL: func.func @other_targets(
// CHECK: softmax.linear_cross_entropy {{.*}} reduction(sum)
// CHECK: arith.divf
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> (d0)>
#map5 = affine_map<(d0) -> ()>
#map6 = affine_map<() -> ()>
func.func @other_targets(%6: tensor<4x6xf32>, %cst_0: tensor<37x6xf32>, %cst: tensor<37xf32>, %arg1: tensor<4xi64>, %other: tensor<4xi64>) -> tensor<f32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %7 = tensor.empty() : tensor<6x37xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<37x6xf32>) outs(%7 : tensor<6x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<6x37xf32>
    %9 = tensor.empty() : tensor<4x37xf32>
    %10 = linalg.fill ins(%cst_3 : f32) outs(%9 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %11 = linalg.matmul ins(%6, %8 : tensor<4x6xf32>, tensor<6x37xf32>) outs(%10 : tensor<4x37xf32>) -> tensor<4x37xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %cst : tensor<4x37xf32>, tensor<37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %14 = tensor.empty() : tensor<4x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<4x1xi64>) -> tensor<4x1xi64>
    %16 = tensor.empty() : tensor<4x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%12 : tensor<4x37xf32>) outs(%17, %15 : tensor<4x1xf32>, tensor<4x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<4x1xf32>, tensor<4x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %18#0 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<4x37xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<4x37xf32>) outs(%21 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<4x1xf32>) outs(%16 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<4x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<4x37xf32>, tensor<4x1xf32>) outs(%9 : tensor<4x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<4x37xf32>
    %cst_n = arith.constant dense<0> : tensor<i64>
    %cst_n0 = arith.constant 0.000000e+00 : f32
    %c37 = arith.constant 37 : index
    %c0_i64_n = arith.constant 0 : i64
    %c-100_i64 = arith.constant -100 : i64
    %n0 = tensor.empty() : tensor<4xi1>
    %n1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%arg1 : tensor<4xi64>) outs(%n0 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<4xi1>
    %n2 = tensor.empty() : tensor<4xi64>
    %n3 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %arg1, %cst_n : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%n2 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %y19 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %y19 : i64
    } -> tensor<4xi64>
    %expanded = tensor.expand_shape %n3 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %n4 = tensor.empty() : tensor<4x1xf32>
    %n5 = linalg.fill ins(%cst_n0 : f32) outs(%n4 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %n6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<4x1xi64>) outs(%n5 : tensor<4x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = linalg.index 0 : index
      %y20 = arith.index_cast %in : i64 to index
      %y21 = arith.cmpi slt, %y20, %c37 : index
      cf.assert %y21, "index must be smaller than dim size"
      %y22 = arith.cmpi sge, %in, %c0_i64_n : i64
      cf.assert %y22, "index must be larger or equal to 0"
      %extracted = tensor.extract %24[%y19, %y20] : tensor<4x37xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x1xf32>
    %collapsed = tensor.collapse_shape %n6 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %n7 = tensor.empty() : tensor<4xf32>
    %n8 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%collapsed : tensor<4xf32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.negf %in : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %n9 = tensor.empty() : tensor<f32>
    %n10 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%cst_n : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n11 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %n8, %n10 : tensor<4xi1>, tensor<4xf32>, tensor<f32>) outs(%n7 : tensor<4xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %y19 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %y19 : f32
    } -> tensor<4xf32>
    %m1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%other : tensor<4xi64>) outs(%n0 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<4xi1>
    %n12 = tensor.empty() : tensor<i64>
    %n13 = linalg.fill ins(%c0_i64_n : i64) outs(%n12 : tensor<i64>) -> tensor<i64>
    %n14 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%m1 : tensor<4xi1>) outs(%n13 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %y19 = arith.extui %in : i1 to i64
      %y20 = arith.addi %y19, %out : i64
      linalg.yield %y20 : i64
    } -> tensor<i64>
    %n15 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%n14 : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n16 = linalg.fill ins(%cst_n0 : f32) outs(%n9 : tensor<f32>) -> tensor<f32>
    %n17 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n11 : tensor<4xf32>) outs(%n16 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.addf %in, %out : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n18 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = []} ins(%n17, %n15 : tensor<f32>, tensor<f32>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %y19 = arith.divf %in, %in_1 : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    return %n18 : tensor<f32>
}
