// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-dynamo/mlir/bert.mlir (forward, lines 196-297: the first layer's self-attention)
// Form: torch-mlir (TorchDynamo): divf by a captured f32 scalar 8.0, batch read through (0,..)
//  maps, two-result max with unused argmax, keepdim [..,1] sum/max, divf; expand/collapse_shape
//  around batch_matmul
// Edits: the first self-attention of @forward cut out: the query/key/value projections %31/%34/%39
//  ([S, H*D]) and the additive mask %3 are arguments, %collapsed_17 the result; the four constants
//  it uses kept; the value projection (lines 202-211) dropped; the dump's #map aliases kept (the
//  file's first line, the dump label 'linalg-on-tensors', is not IR); output_shape added to
//  tensor.expand_shape (MLIR 22 syntax); 12 heads -> 3, sequence 8 -> 13, head dim 64 -> 16
//  (hidden 768 -> 48).
// Semantics: softmax(Q K^T / 8 + mask) V per head; Q, K, V are [S, H*D] (batch 1 folded), split
//  into heads by expand_shape [1,S,H,D] + transpose, mask [1,1,1,S]; result merged to [S, H*D].

// CHECK-LABEL: func.func @torch_mlir_dynamo_bert_attention(
// CHECK-NOT: math.exp
// CHECK: softmax.attention ins(%{{[^,]*}}, %{{[^,]*}}, %{{[^,:]*}}, %{{[^,:]*}} :{{.*}}{{.*}} scale(1.250000e-01)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map6 = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#map7 = affine_map<(d0, d1, d2) -> (d2)>
#map8 = affine_map<(d0, d1) -> (d0, d1)>
#map9 = affine_map<(d0, d1) -> (d1, d0)>
#map10 = affine_map<(d0, d1) -> (d1)>
#map11 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
#map13 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map14 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map15 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, 0)>
#map16 = affine_map<(d0, d1) -> (0, d1)>
func.func @torch_mlir_dynamo_bert_attention(%31: tensor<13x48xf32>, %34: tensor<13x48xf32>, %39: tensor<13x48xf32>, %3: tensor<1x1x1x13xf32>) -> tensor<13x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_7 = arith.constant 8.000000e+00 : f32
    %expanded_8 = tensor.expand_shape %34 [[0, 1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<13x48xf32> into tensor<1x13x3x16xf32>
    %35 = tensor.empty() : tensor<1x3x13x16xf32>
    %36 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_8 : tensor<1x13x3x16xf32>) outs(%35 : tensor<1x3x13x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x3x13x16xf32>
    %expanded_9 = tensor.expand_shape %39 [[0, 1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<13x48xf32> into tensor<1x13x3x16xf32>
    %40 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_9 : tensor<1x13x3x16xf32>) outs(%35 : tensor<1x3x13x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x3x13x16xf32>
    %expanded_10 = tensor.expand_shape %31 [[0, 1], [2, 3]] output_shape [1, 13, 3, 16] : tensor<13x48xf32> into tensor<1x13x3x16xf32>
    %41 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_10 : tensor<1x13x3x16xf32>) outs(%35 : tensor<1x3x13x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x3x13x16xf32>
    %42 = tensor.empty() : tensor<1x3x16x13xf32>
    %43 = linalg.generic {indexing_maps = [#map1, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%36 : tensor<1x3x13x16xf32>) outs(%42 : tensor<1x3x16x13xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x3x16x13xf32>
    %collapsed_11 = tensor.collapse_shape %41 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
    %collapsed_12 = tensor.collapse_shape %43 [[0, 1], [2], [3]] : tensor<1x3x16x13xf32> into tensor<3x16x13xf32>
    %44 = tensor.empty() : tensor<3x13x13xf32>
    %45 = linalg.fill ins(%cst : f32) outs(%44 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
    %46 = linalg.batch_matmul ins(%collapsed_11, %collapsed_12 : tensor<3x13x16xf32>, tensor<3x16x13xf32>) outs(%45 : tensor<3x13x13xf32>) -> tensor<3x13x13xf32>
    %expanded_13 = tensor.expand_shape %46 [[0, 1], [2], [3]] output_shape [1, 3, 13, 13] : tensor<3x13x13xf32> into tensor<1x3x13x13xf32>
    %47 = tensor.empty() : tensor<1x3x13x13xf32>
    %48 = linalg.generic {indexing_maps = [#map13, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_13 : tensor<1x3x13x13xf32>) outs(%47 : tensor<1x3x13x13xf32>) {
    ^bb0(%in: f32, %out: f32):
      %833 = arith.divf %in, %cst_7 : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x13x13xf32>
    %49 = linalg.generic {indexing_maps = [#map13, #map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%48, %3 : tensor<1x3x13x13xf32>, tensor<1x1x1x13xf32>) outs(%47 : tensor<1x3x13x13xf32>) {
    ^bb0(%in: f32, %in_201: f32, %out: f32):
      %833 = arith.addf %in, %in_201 : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x13x13xf32>
    %50 = tensor.empty() : tensor<1x3x13x1xi64>
    %51 = linalg.fill ins(%c0_i64 : i64) outs(%50 : tensor<1x3x13x1xi64>) -> tensor<1x3x13x1xi64>
    %52 = tensor.empty() : tensor<1x3x13x1xf32>
    %53 = linalg.fill ins(%cst_0 : f32) outs(%52 : tensor<1x3x13x1xf32>) -> tensor<1x3x13x1xf32>
    %54:2 = linalg.generic {indexing_maps = [#map1, #map14, #map14], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%49 : tensor<1x3x13x13xf32>) outs(%53, %51 : tensor<1x3x13x1xf32>, tensor<1x3x13x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_201: i64):
      %833 = linalg.index 3 : index
      %834 = arith.index_cast %833 : index to i64
      %835 = arith.maximumf %in, %out : f32
      %836 = arith.cmpf ogt, %in, %out : f32
      %837 = arith.select %836, %834, %out_201 : i64
      linalg.yield %835, %837 : f32, i64
    } -> (tensor<1x3x13x1xf32>, tensor<1x3x13x1xi64>)
    %55 = linalg.generic {indexing_maps = [#map13, #map15, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%49, %54#0 : tensor<1x3x13x13xf32>, tensor<1x3x13x1xf32>) outs(%47 : tensor<1x3x13x13xf32>) {
    ^bb0(%in: f32, %in_201: f32, %out: f32):
      %833 = arith.subf %in, %in_201 : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x13x13xf32>
    %56 = linalg.generic {indexing_maps = [#map13, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%55 : tensor<1x3x13x13xf32>) outs(%47 : tensor<1x3x13x13xf32>) {
    ^bb0(%in: f32, %out: f32):
      %833 = math.exp %in : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x13x13xf32>
    %57 = linalg.fill ins(%cst : f32) outs(%52 : tensor<1x3x13x1xf32>) -> tensor<1x3x13x1xf32>
    %58 = linalg.generic {indexing_maps = [#map1, #map14], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%56 : tensor<1x3x13x13xf32>) outs(%57 : tensor<1x3x13x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %833 = arith.addf %in, %out : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x13x1xf32>
    %59 = linalg.generic {indexing_maps = [#map13, #map15, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%56, %58 : tensor<1x3x13x13xf32>, tensor<1x3x13x1xf32>) outs(%47 : tensor<1x3x13x13xf32>) {
    ^bb0(%in: f32, %in_201: f32, %out: f32):
      %833 = arith.divf %in, %in_201 : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x13x13xf32>
    %60 = linalg.generic {indexing_maps = [#map13, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%59 : tensor<1x3x13x13xf32>) outs(%47 : tensor<1x3x13x13xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x3x13x13xf32>
    %collapsed_14 = tensor.collapse_shape %60 [[0, 1], [2], [3]] : tensor<1x3x13x13xf32> into tensor<3x13x13xf32>
    %collapsed_15 = tensor.collapse_shape %40 [[0, 1], [2], [3]] : tensor<1x3x13x16xf32> into tensor<3x13x16xf32>
    %61 = tensor.empty() : tensor<3x13x16xf32>
    %62 = linalg.fill ins(%cst : f32) outs(%61 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
    %63 = linalg.batch_matmul ins(%collapsed_14, %collapsed_15 : tensor<3x13x13xf32>, tensor<3x13x16xf32>) outs(%62 : tensor<3x13x16xf32>) -> tensor<3x13x16xf32>
    %expanded_16 = tensor.expand_shape %63 [[0, 1], [2], [3]] output_shape [1, 3, 13, 16] : tensor<3x13x16xf32> into tensor<1x3x13x16xf32>
    %64 = tensor.empty() : tensor<1x13x3x16xf32>
    %65 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_16 : tensor<1x3x13x16xf32>) outs(%64 : tensor<1x13x3x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x13x3x16xf32>
    %66 = linalg.generic {indexing_maps = [#map13, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%65 : tensor<1x13x3x16xf32>) outs(%64 : tensor<1x13x3x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x13x3x16xf32>
    %collapsed_17 = tensor.collapse_shape %66 [[0, 1], [2, 3]] : tensor<1x13x3x16xf32> into tensor<13x48xf32>
    return %collapsed_17 : tensor<13x48xf32>
}
