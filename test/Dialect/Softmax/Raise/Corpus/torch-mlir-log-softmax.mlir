// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: plaidml/mlir-generator@4457cbf8207f595fdc049b09954c5c515acb28bf:pytorch/torch-script/mlir/linear.mlir (forward (linalg-on-tensors section): the log_softmax of the logits)
// Form: torch-mlir log_softmax: two-result max with unused argmax into [N,1], (d0,0) keepdim maps,
//  math.log as its own generic on the [N,1] sum, x - max - log(sum)
// Edits: the log_softmax at the end of @forward cut out: the ReLU'd logits %13 are the argument;
//  the constants it uses and the tensor.empty %9 kept; tensor<2x10xf32> -> tensor<3x37xf32>,
//  tensor<2x1xf32/i64> -> tensor<3x1x..>.
// Semantics: log_softmax over dimension 1 of tensor<3x37xf32>.

// CHECK-LABEL: func.func @torch_mlir_log_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.log_softmax ins(%{{.*}} : tensor<3x37xf32>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
func.func @torch_mlir_log_softmax(%13: tensor<3x37xf32>) -> tensor<3x37xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %9 = tensor.empty() : tensor<3x37xf32>
    %14 = tensor.empty() : tensor<3x1xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<3x1xi64>) -> tensor<3x1xi64>
    %16 = tensor.empty() : tensor<3x1xf32>
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<3x1xf32>) -> tensor<3x1xf32>
    %18:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%13 : tensor<3x37xf32>) outs(%17, %15 : tensor<3x1xf32>, tensor<3x1xi64>) {
    ^bb0(%in: f32, %out: f32, %out_5: i64):
      %25 = linalg.index 1 : index
      %26 = arith.index_cast %25 : index to i64
      %27 = arith.maximumf %in, %out : f32
      %28 = arith.cmpf ogt, %in, %out : f32
      %29 = arith.select %28, %26, %out_5 : i64
      linalg.yield %27, %29 : f32, i64
    } -> (tensor<3x1xf32>, tensor<3x1xi64>)
    %19 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%13, %18#0 : tensor<3x37xf32>, tensor<3x1xf32>) outs(%9 : tensor<3x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<3x37xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<3x37xf32>) outs(%9 : tensor<3x37xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.exp %in : f32
      linalg.yield %25 : f32
    } -> tensor<3x37xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%16 : tensor<3x1xf32>) -> tensor<3x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map3], iterator_types = ["parallel", "reduction"]} ins(%20 : tensor<3x37xf32>) outs(%21 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = arith.addf %in, %out : f32
      linalg.yield %25 : f32
    } -> tensor<3x1xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<3x1xf32>) outs(%16 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %25 = math.log %in : f32
      linalg.yield %25 : f32
    } -> tensor<3x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %23 : tensor<3x37xf32>, tensor<3x1xf32>) outs(%9 : tensor<3x37xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %25 = arith.subf %in, %in_5 : f32
      linalg.yield %25 : f32
    } -> tensor<3x37xf32>
    return %24 : tensor<3x37xf32>
}
