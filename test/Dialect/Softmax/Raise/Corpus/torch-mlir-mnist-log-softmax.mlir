// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-dynamo/mlir/mnist.mlir (forward: the final log_softmax)
// Form: torch-mlir log_softmax on a batch of 1: inputs read through (0, d1) and the keepdim [1,1]
//  values through (0, 0) maps, two-result max, math.log generic
// Edits: the log_softmax at the end of @forward cut out: the logits %47 are the argument; the
//  constants it uses and the tensor.empty %44 kept; tensor<1x10xf32> -> tensor<1x37xf32> (the
//  batch stays 1: the maps read row 0 through constant 0s).
// Semantics: log_softmax over dimension 1 of tensor<1x37xf32>.

// CHECK-LABEL: func.func @torch_mlir_mnist_log_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.log_softmax ins(%{{.*}} : tensor<1x37xf32>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2, d3) -> (d1)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> ()>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1, d0)>
#map6 = affine_map<(d0, d1) -> (d1)>
#map7 = affine_map<(d0, d1) -> (0, d1)>
#map8 = affine_map<(d0, d1) -> ()>
#map9 = affine_map<(d0, d1) -> (d0, 0)>
#map10 = affine_map<(d0, d1) -> (0, 0)>
func.func @torch_mlir_mnist_log_softmax(%47: tensor<1x37xf32>) -> tensor<1x37xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %c0_i64 = arith.constant 0 : i64
    %44 = tensor.empty() : tensor<1x37xf32>
    %48 = tensor.empty() : tensor<1x1xi64>
    %49 = linalg.fill ins(%c0_i64 : i64) outs(%48 : tensor<1x1xi64>) -> tensor<1x1xi64>
    %50 = tensor.empty() : tensor<1x1xf32>
    %51 = linalg.fill ins(%cst_0 : f32) outs(%50 : tensor<1x1xf32>) -> tensor<1x1xf32>
    %52:2 = linalg.generic {indexing_maps = [#map4, #map9, #map9], iterator_types = ["parallel", "reduction"]} ins(%47 : tensor<1x37xf32>) outs(%51, %49 : tensor<1x1xf32>, tensor<1x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_9: i64):
      %59 = linalg.index 1 : index
      %60 = arith.index_cast %59 : index to i64
      %61 = arith.maximumf %in, %out : f32
      %62 = arith.cmpf ogt, %in, %out : f32
      %63 = arith.select %62, %60, %out_9 : i64
      linalg.yield %61, %63 : f32, i64
    } -> (tensor<1x1xf32>, tensor<1x1xi64>)
    %53 = linalg.generic {indexing_maps = [#map7, #map10, #map4], iterator_types = ["parallel", "parallel"]} ins(%47, %52#0 : tensor<1x37xf32>, tensor<1x1xf32>) outs(%44 : tensor<1x37xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %59 = arith.subf %in, %in_9 : f32
      linalg.yield %59 : f32
    } -> tensor<1x37xf32>
    %54 = linalg.generic {indexing_maps = [#map7, #map4], iterator_types = ["parallel", "parallel"]} ins(%53 : tensor<1x37xf32>) outs(%44 : tensor<1x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %59 = math.exp %in : f32
      linalg.yield %59 : f32
    } -> tensor<1x37xf32>
    %55 = linalg.fill ins(%cst : f32) outs(%50 : tensor<1x1xf32>) -> tensor<1x1xf32>
    %56 = linalg.generic {indexing_maps = [#map4, #map9], iterator_types = ["parallel", "reduction"]} ins(%54 : tensor<1x37xf32>) outs(%55 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %59 = arith.addf %in, %out : f32
      linalg.yield %59 : f32
    } -> tensor<1x1xf32>
    %57 = linalg.generic {indexing_maps = [#map10, #map4], iterator_types = ["parallel", "parallel"]} ins(%56 : tensor<1x1xf32>) outs(%50 : tensor<1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %59 = math.log %in : f32
      linalg.yield %59 : f32
    } -> tensor<1x1xf32>
    %58 = linalg.generic {indexing_maps = [#map7, #map10, #map4], iterator_types = ["parallel", "parallel"]} ins(%53, %57 : tensor<1x37xf32>, tensor<1x1xf32>) outs(%44 : tensor<1x37xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %59 = arith.subf %in, %in_9 : f32
      linalg.yield %59 : f32
    } -> tensor<1x37xf32>
    return %58 : tensor<1x37xf32>
}
