// RUN: softmax-opt %s --softmax-raise | FileCheck %s
// RUN: softmax-opt %s --transform-preload-library="transform-library-paths=%S/../../TransformOps/Inputs/raise.mlir" --transform-interpreter | FileCheck %s
//
// Origin: as torch-mlir-linear-cross-entropy-mean.mlir (the classifier and log_softmax of
//  plaidml/mlir-generator@24c6cd98a5e0dff8d37a32e52dba39287eb8dff4:pytorch/torch-script/mlir/linear.mlir,
//  the NLL of llvm/torch-mlir@51967b96a22a8e06c6ac3b3471027c792636bb03:test/python/fx_importer/iree_test/linalg-ir/Nll_loss_forward.mlir).
// Form: F.cross_entropy(h @ W.T + b, t, reduction="none", ignore_index=-1) (nanoGPT's
//  ignore index): PyTorch's nll_loss_forward decomposition returns the masked losses [N].
// Edits: those of the mean file; then the reductions %n12 .. %n18 dropped and the masked
//  losses %n11 returned; the ignore constant -100 -> -1; 3 tokens, hidden 4, 33 classes.
// Semantics: for each token, 0 if t == -1, else logsumexp(z_n) - z_n,t_n, z = h W^T + b.

// CHECK-LABEL: func.func @torch_mlir_linear_cross_entropy_none(
// CHECK-SAME:    %[[H:.*]]: tensor<3x4xf32>, %[[W:.*]]: tensor<33x4xf32>, %[[B:.*]]: tensor<33xf32>, %[[T:.*]]: tensor<3xi64>)
// CHECK-NOT: linalg.
// CHECK: %[[L:.*]] = softmax.linear_cross_entropy ins(%[[H]], %[[W]], %[[T]] : tensor<3x4xf32>, tensor<33x4xf32>, tensor<3xi64>) bias(%[[B]] : tensor<33xf32>) outs(%{{.*}} : tensor<3xf32>) reduction(none) ignore_index(-1)
// CHECK-NOT: linalg.
// CHECK: return %[[L]]

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> (d0)>
#map5 = affine_map<(d0) -> ()>
#map6 = affine_map<() -> ()>
func.func @torch_mlir_linear_cross_entropy_none(%6: tensor<3x4xf32>, %cst_0: tensor<33x4xf32>, %cst: tensor<33xf32>, %arg1: tensor<3xi64>) -> tensor<3xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %7 = tensor.empty() : tensor<4x33xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<33x4xf32>) outs(%7 : tensor<4x33xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x33xf32>
    %9 = tensor.empty() : tensor<3x33xf32>
    %10 = linalg.fill ins(%cst_3 : f32) outs(%9 : tensor<3x33xf32>) -> tensor<3x33xf32>
    %11 = linalg.matmul ins(%6, %8 : tensor<3x4xf32>, tensor<4x33xf32>) outs(%10 : tensor<3x33xf32>) -> tensor<3x33xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %cst : tensor<3x33xf32>, tensor<33xf32>) outs(%9 : tensor<3x33xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.addf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<3x33xf32>
    %14 = tensor.empty() : tensor<3x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<3x1xi64>) -> tensor<3x1xi64>
    %16 = tensor.empty() : tensor<3x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<3x1xf32>) -> tensor<3x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%12 : tensor<3x33xf32>) outs(%17, %15 : tensor<3x1xf32>, tensor<3x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<3x1xf32>, tensor<3x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %18#0 : tensor<3x33xf32>, tensor<3x1xf32>) outs(%9 : tensor<3x33xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<3x33xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<3x33xf32>) outs(%9 : tensor<3x33xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<3x33xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<3x1xf32>) -> tensor<3x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<3x33xf32>) outs(%21 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<3x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<3x1xf32>) outs(%16 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<3x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<3x33xf32>, tensor<3x1xf32>) outs(%9 : tensor<3x33xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<3x33xf32>
    %cst_n = arith.constant dense<0> : tensor<i64>
    %cst_n0 = arith.constant 0.000000e+00 : f32
    %c37 = arith.constant 33 : index
    %c0_i64_n = arith.constant 0 : i64
    %c-1_i64 = arith.constant -1 : i64
    %n0 = tensor.empty() : tensor<3xi1>
    %n1 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%arg1 : tensor<3xi64>) outs(%n0 : tensor<3xi1>) {
    ^bb0(%in: i64, %out: i1):
      %y19 = arith.cmpi ne, %in, %c-1_i64 : i64
      linalg.yield %y19 : i1
    } -> tensor<3xi1>
    %n2 = tensor.empty() : tensor<3xi64>
    %n3 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %arg1, %cst_n : tensor<3xi1>, tensor<3xi64>, tensor<i64>) outs(%n2 : tensor<3xi64>) {
    ^bb0(%in: i1, %in_1: i64, %in_2: i64, %out: i64):
      %y19 = arith.select %in, %in_1, %in_2 : i64
      linalg.yield %y19 : i64
    } -> tensor<3xi64>
    %expanded = tensor.expand_shape %n3 [[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
    %n4 = tensor.empty() : tensor<3x1xf32>
    %n5 = linalg.fill ins(%cst_n0 : f32) outs(%n4 : tensor<3x1xf32>) -> tensor<3x1xf32>
    %n6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<3x1xi64>) outs(%n5 : tensor<3x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = linalg.index 0 : index
      %y20 = arith.index_cast %in : i64 to index
      %y21 = arith.cmpi slt, %y20, %c37 : index
      cf.assert %y21, "index must be smaller than dim size"
      %y22 = arith.cmpi sge, %in, %c0_i64_n : i64
      cf.assert %y22, "index must be larger or equal to 0"
      %extracted = tensor.extract %24[%y19, %y20] : tensor<3x33xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x1xf32>
    %collapsed = tensor.collapse_shape %n6 [[0, 1]] : tensor<3x1xf32> into tensor<3xf32>
    %n7 = tensor.empty() : tensor<3xf32>
    %n8 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel"]} ins(%collapsed : tensor<3xf32>) outs(%n7 : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y19 = arith.negf %in : f32
      linalg.yield %y19 : f32
    } -> tensor<3xf32>
    %n9 = tensor.empty() : tensor<f32>
    %n10 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = []} ins(%cst_n : tensor<i64>) outs(%n9 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %y19 = arith.sitofp %in : i64 to f32
      linalg.yield %y19 : f32
    } -> tensor<f32>
    %n11 = linalg.generic {indexing_maps = [#map4, #map4, #map5, #map4], iterator_types = ["parallel"]} ins(%n1, %n8, %n10 : tensor<3xi1>, tensor<3xf32>, tensor<f32>) outs(%n7 : tensor<3xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %y19 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %y19 : f32
    } -> tensor<3xf32>
    return %n11 : tensor<3xf32>
}
