// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: renxida/torch-mlir@cb60e81586375d036c551c73b2331cf412328dd0:issue450/test_logsoftmax_old_axis_1_static_1.mlir.linalg.mlir (test_logsoftmax_old_axis_1_static)
// Producer: ONNX through torch-mlir: the ONNX backend test test_logsoftmax_old_axis_1_static
//  (onnx.LogSoftmax {axis = 1}, opset 1, the lit test input
//  issue450/test_logsoftmax_old_axis_1_static_1.mlir of the same commit) converted by
//  tabulate_issue450.py of the same commit with torch-mlir-opt --convert-torch-onnx-to-torch,
//  --torch-decompose-complex-ops and --torch-backend-to-linalg-on-tensors-backend-pipeline (each
//  with --canonicalize).
// Form: opset-1 LogSoftmax(axis = 1) of a rank-3 tensor, which normalizes over the flattened
//  trailing dimensions: tensor.collapse_shape [3,4,5] -> [3,20] around a torch-mlir log_softmax over
//  dimension 1 (two-result max, (d0,0) maps, math.log as its own generic on the [3,1] sum) and
//  tensor.expand_shape [3,20] -> [3,4,5] of the result.
// Edits: module wrapper and the unused ml_program.global @global_seed dropped; renamed to
//  @onnx_torch_mlir_logsoftmax_old_axis_1; shapes kept (3, 4, 5 and 20 are small and not multiples
//  of 8).
// Semantics: log_softmax over dimensions 1 and 2 together of tensor<3x4x5xf32> (each of the 3 rows
//  of 4*5 = 20 values is normalized); raised, it is a log_softmax over dimension 1 of the collapsed
//  tensor<3x20xf32> (or an equivalent form).

// CHECK-LABEL: func.func @onnx_torch_mlir_logsoftmax_old_axis_1(
// CHECK-NOT: math.exp
// CHECK: softmax.log_softmax ins(%{{.*}} : tensor<3x20xf32>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
func.func @onnx_torch_mlir_logsoftmax_old_axis_1(%arg0: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %collapsed = tensor.collapse_shape %arg0 [[0], [1, 2]] : tensor<3x4x5xf32> into tensor<3x20xf32>
  %0 = tensor.empty() : tensor<3xi64>
  %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<3xi64>) -> tensor<3xi64>
  %2 = tensor.empty() : tensor<3xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<3xf32>) -> tensor<3xf32>
  %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%collapsed : tensor<3x20xf32>) outs(%3, %1 : tensor<3xf32>, tensor<3xi64>) {
  ^bb0(%in: f32, %out: f32, %out_2: i64):
    %13 = linalg.index 1 : index
    %14 = arith.index_cast %13 : index to i64
    %15 = arith.maximumf %in, %out : f32
    %16 = arith.cmpf ogt, %in, %out : f32
    %17 = arith.select %16, %14, %out_2 : i64
    linalg.yield %15, %17 : f32, i64
  } -> (tensor<3xf32>, tensor<3xi64>)
  %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
  %5 = tensor.empty() : tensor<3x20xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed, %expanded : tensor<3x20xf32>, tensor<3x1xf32>) outs(%5 : tensor<3x20xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %13 = arith.subf %in, %in_2 : f32
    linalg.yield %13 : f32
  } -> tensor<3x20xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<3x20xf32>) outs(%5 : tensor<3x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %13 = math.exp %in : f32
    linalg.yield %13 : f32
  } -> tensor<3x20xf32>
  %8 = tensor.empty() : tensor<3x1xf32>
  %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<3x1xf32>) -> tensor<3x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<3x20xf32>) outs(%9 : tensor<3x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %13 = arith.addf %in, %out : f32
    linalg.yield %13 : f32
  } -> tensor<3x1xf32>
  %11 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<3x1xf32>) outs(%8 : tensor<3x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %13 = math.log %in : f32
    linalg.yield %13 : f32
  } -> tensor<3x1xf32>
  %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %11 : tensor<3x20xf32>, tensor<3x1xf32>) outs(%5 : tensor<3x20xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %13 = arith.subf %in, %in_2 : f32
    linalg.yield %13 : f32
  } -> tensor<3x20xf32>
  %expanded_1 = tensor.expand_shape %12 [[0], [1, 2]] output_shape [3, 4, 5] : tensor<3x20xf32> into tensor<3x4x5xf32>
  return %expanded_1 : tensor<3x4x5xf32>
}
