// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Linear cross-entropy raising beyond the corpus. Each function is a corpus
// function (Raise/Corpus/torch-mlir-linear-cross-entropy-*.mlir, origins
// there) with the edit named above it.

// The sum function with a bf16 classifier: h and W bf16, the product
// rounded to bf16 and extended to f32 before the log_softmax (autocast
// runs cross_entropy in f32), the loss f32. The fused op takes the bf16
// operands and computes the logits in f32 (more accurate than the graph's
// bf16 rounding, not bit-identical).
// CHECK-LABEL: func.func @autocast_bf16_logits(
// CHECK-SAME:    %[[H:.*]]: tensor<5x8xbf16>, %[[W:.*]]: tensor<41x8xbf16>, %[[T:.*]]: tensor<5xi64>)
// CHECK-NOT: linalg.
// CHECK: %[[L:.*]] = softmax.linear_cross_entropy ins(%[[H]], %[[W]], %[[T]] : tensor<5x8xbf16>, tensor<41x8xbf16>, tensor<5xi64>) outs(%{{.*}} : tensor<f32>) reduction(sum)
// CHECK-NOT: linalg.
// CHECK: return %[[L]]
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> (d0)>
#map5 = affine_map<(d0) -> ()>
#map6 = affine_map<() -> ()>
func.func @autocast_bf16_logits(%6: tensor<5x8xbf16>, %cst_0: tensor<41x8xbf16>, %arg1: tensor<5xi64>) -> tensor<f32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %7 = tensor.empty() : tensor<8x41xbf16>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<41x8xbf16>) outs(%7 : tensor<8x41xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      linalg.yield %in : bf16
    } -> tensor<8x41xbf16>
    %9 = tensor.empty() : tensor<5x41xf32>
    %10 = linalg.fill ins(%cst_3 : f32) outs(%9 : tensor<5x41xf32>) -> tensor<5x41xf32>
    %mb = tensor.empty() : tensor<5x41xbf16>
    %zb = arith.constant 0.0 : bf16
    %mc = linalg.fill ins(%zb : bf16) outs(%mb : tensor<5x41xbf16>) -> tensor<5x41xbf16>
    %md = linalg.matmul ins(%6, %8 : tensor<5x8xbf16>, tensor<8x41xbf16>) outs(%mc : tensor<5x41xbf16>) -> tensor<5x41xbf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%md : tensor<5x41xbf16>) outs(%9 : tensor<5x41xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %e = arith.extf %in : bf16 to f32
      linalg.yield %e : f32
    } -> tensor<5x41xf32>
    %14 = tensor.empty() : tensor<5x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<5x1xi64>) -> tensor<5x1xi64>
    %16 = tensor.empty() : tensor<5x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<5x1xf32>) -> tensor<5x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%11 : tensor<5x41xf32>) outs(%17, %15 : tensor<5x1xf32>, tensor<5x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<5x1xf32>, tensor<5x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %18#0 : tensor<5x41xf32>, tensor<5x1xf32>) outs(%9 : tensor<5x41xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<5x41xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<5x41xf32>) outs(%9 : tensor<5x41xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<5x41xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<5x1xf32>) -> tensor<5x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<5x41xf32>) outs(%21 : tensor<5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<5x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<5x1xf32>) outs(%16 : tensor<5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<5x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<5x41xf32>, tensor<5x1xf32>) outs(%9 : tensor<5x41xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<5x41xf32>
    %cst_n = arith.constant dense<0> : tensor<i64>
    %cst_n0 = arith.constant 0.000000e+00 : f32
    %c37 = arith.constant 41 : index
    %c0_i64_n = arith.constant 0 : i64
    %c-100_i64 = arith.constant -100 : i64
    %n0 = tensor.empty() : tensor<5xi1>
    %n1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%arg1 : tensor<5xi64>) outs(%n0 : tensor<5xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<5xi1>
    %n2 = tensor.empty() : tensor<5xi64>
    %n3 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %arg1, %cst_n : tensor<5xi1>, tensor<5xi64>, tensor<i64>) outs(%n2 : tensor<5xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %y19 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %y19 : i64
    } -> tensor<5xi64>
    %expanded = tensor.expand_shape %n3 [[0, 1]] output_shape [5, 1] : tensor<5xi64> into tensor<5x1xi64>
    %n4 = tensor.empty() : tensor<5x1xf32>
    %n5 = linalg.fill ins(%cst_n0 : f32) outs(%n4 : tensor<5x1xf32>) -> tensor<5x1xf32>
    %n6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<5x1xi64>) outs(%n5 : tensor<5x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = linalg.index 0 : index
      %y20 = arith.index_cast %in : i64 to index
      %y21 = arith.cmpi slt, %y20, %c37 : index
      cf.assert %y21, "index must be smaller than dim size"
      %y22 = arith.cmpi sge, %in, %c0_i64_n : i64
      cf.assert %y22, "index must be larger or equal to 0"
      %extracted = tensor.extract %24[%y19, %y20] : tensor<5x41xf32>
      linalg.yield %extracted : f32
    } -> tensor<5x1xf32>
    %collapsed = tensor.collapse_shape %n6 [[0, 1]] : tensor<5x1xf32> into tensor<5xf32>
    %n7 = tensor.empty() : tensor<5xf32>
    %n8 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%collapsed : tensor<5xf32>) outs(%n7 : tensor<5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.negf %in : f32
      linalg.yield %y19 : f32
    } -> tensor<5xf32>
    %n9 = tensor.empty() : tensor<f32>
    %n10 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%cst_n : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n11 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %n8, %n10 : tensor<5xi1>, tensor<5xf32>, tensor<f32>) outs(%n7 : tensor<5xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %y19 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %y19 : f32
    } -> tensor<5xf32>
    %n16 = linalg.fill ins(%cst_n0 : f32) outs(%n9 : tensor<f32>) -> tensor<f32>
    %n17 = linalg.generic {indexing_maps = [#map4, #map5], iterator_types = ["reduction"]} ins(%n11 : tensor<5xf32>) outs(%n16 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.addf %in, %out : f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    return %n17 : tensor<f32>
}
