// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-dynamo/mlir/bert.mlir (forward: softmax of the first layer's masked scores (%50 .. %59))
// Form: torch-mlir (TorchDynamo, maximumf) keepdim softmax: two-result max with unused argmax,
//  (d0,d1,d2,0) and (0,d1,d2,0) maps, divf
// Edits: the softmax of the first self-attention cut out: the masked scores %49 are the argument,
//  %59 the result; the constants it uses and the tensor.empty %47 kept; 1x12x8x8 -> 1x3x5x37,
//  1x12x8x1 -> 1x3x5x1 (batch stays 1: (0,d1,d2,d3) maps).
// Semantics: softmax over dimension 3 of tensor<1x3x5x37xf32>.

// CHECK-LABEL: func.func @torch_mlir_dynamo_bert_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<1x3x5x37xf32>) outs(%{{.*}}) dimension(3)
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
func.func @torch_mlir_dynamo_bert_softmax(%49: tensor<1x3x5x37xf32>) -> tensor<1x3x5x37xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %c0_i64 = arith.constant 0 : i64
    %47 = tensor.empty() : tensor<1x3x5x37xf32>
    %50 = tensor.empty() : tensor<1x3x5x1xi64>
    %51 = linalg.fill ins(%c0_i64 : i64) outs(%50 : tensor<1x3x5x1xi64>) -> tensor<1x3x5x1xi64>
    %52 = tensor.empty() : tensor<1x3x5x1xf32>
    %53 = linalg.fill ins(%cst_0 : f32) outs(%52 : tensor<1x3x5x1xf32>) -> tensor<1x3x5x1xf32>
    %54:2 = linalg.generic {indexing_maps = [#map1, #map14, #map14], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%49 : tensor<1x3x5x37xf32>) outs(%53, %51 : tensor<1x3x5x1xf32>, tensor<1x3x5x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_201: i64):
      %833 = linalg.index 3 : index
      %834 = arith.index_cast %833 : index to i64
      %835 = arith.maximumf %in, %out : f32
      %836 = arith.cmpf ogt, %in, %out : f32
      %837 = arith.select %836, %834, %out_201 : i64
      linalg.yield %835, %837 : f32, i64
    } -> (tensor<1x3x5x1xf32>, tensor<1x3x5x1xi64>)
    %55 = linalg.generic {indexing_maps = [#map13, #map15, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%49, %54#0 : tensor<1x3x5x37xf32>, tensor<1x3x5x1xf32>) outs(%47 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %in_201: f32, %out: f32):
      %833 = arith.subf %in, %in_201 : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x5x37xf32>
    %56 = linalg.generic {indexing_maps = [#map13, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%55 : tensor<1x3x5x37xf32>) outs(%47 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %833 = math.exp %in : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x5x37xf32>
    %57 = linalg.fill ins(%cst : f32) outs(%52 : tensor<1x3x5x1xf32>) -> tensor<1x3x5x1xf32>
    %58 = linalg.generic {indexing_maps = [#map1, #map14], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%56 : tensor<1x3x5x37xf32>) outs(%57 : tensor<1x3x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %833 = arith.addf %in, %out : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x5x1xf32>
    %59 = linalg.generic {indexing_maps = [#map13, #map15, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%56, %58 : tensor<1x3x5x37xf32>, tensor<1x3x5x1xf32>) outs(%47 : tensor<1x3x5x37xf32>) {
    ^bb0(%in: f32, %in_201: f32, %out: f32):
      %833 = arith.divf %in, %in_201 : f32
      linalg.yield %833 : f32
    } -> tensor<1x3x5x37xf32>
    return %59 : tensor<1x3x5x37xf32>
}
