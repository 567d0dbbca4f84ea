// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:tests/e2e/regression/softmax.mlir (softmax (the TOSA input quoted in the file's header comment))
// Converted from Inputs/tosa-softmax.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Form: MLIR 22 tosa-to-linalg output: linalg.reduce with -FLT_MAX / 0 seeds, tensor.expand_shape
//  to [..,1], broadcasting generics with (d0,d1,0) maps, reciprocal as its own generic, mulf
// Edits: the TOSA function quoted in the header comment taken (its constant input and check op
//  removed, the input an argument, %mul returned); TOSA syntax brought to MLIR 22: axis attributes
//  i64 -> i32, the shift constant's {value = ...} attribute -> <{values = ...}> properties;
//  12x128x128 -> 3x5x37 (12x128x1 -> 3x5x1); after conversion, the dead tosa.const_shape ops
//  (operands of the converted tosa.reshape ops) deleted.
// Semantics: softmax over dimension 2 of tensor<3x5x37xf32>.

// CHECK-LABEL: func.func @tosa_softmax(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<3x5x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @tosa_softmax(%arg0: tensor<3x5x37xf32>) -> tensor<3x5x37xf32> {
  %0 = tensor.empty() : tensor<3x5xf32>
  %cst = arith.constant -3.40282347E+38 : f32
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<3x5x37xf32>) outs(%1 : tensor<3x5xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %12 = arith.maximumf %in, %init : f32
      linalg.yield %12 : f32
    }
  %expanded = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [3, 5, 1] : tensor<3x5xf32> into tensor<3x5x1xf32>
  %2 = tensor.empty() : tensor<3x5x37xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %expanded : tensor<3x5x37xf32>, tensor<3x5x1xf32>) outs(%2 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %12 = arith.subf %in, %in_4 : f32
    linalg.yield %12 : f32
  } -> tensor<3x5x37xf32>
  %4 = tensor.empty() : tensor<3x5x37xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3 : tensor<3x5x37xf32>) outs(%4 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = math.exp %in : f32
    linalg.yield %12 : f32
  } -> tensor<3x5x37xf32>
  %6 = tensor.empty() : tensor<3x5xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %reduced_1 = linalg.reduce ins(%5 : tensor<3x5x37xf32>) outs(%7 : tensor<3x5xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %12 = arith.addf %in, %init : f32
      linalg.yield %12 : f32
    }
  %expanded_2 = tensor.expand_shape %reduced_1 [[0], [1, 2]] output_shape [3, 5, 1] : tensor<3x5xf32> into tensor<3x5x1xf32>
  %8 = tensor.empty() : tensor<3x5x1xf32>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_2 : tensor<3x5x1xf32>) outs(%8 : tensor<3x5x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %cst_4 = arith.constant 1.000000e+00 : f32
    %12 = arith.divf %cst_4, %in : f32
    linalg.yield %12 : f32
  } -> tensor<3x5x1xf32>
  %cst_3 = arith.constant dense<0> : tensor<1xi8>
  %10 = tensor.empty() : tensor<3x5x37xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %9 : tensor<3x5x37xf32>, tensor<3x5x1xf32>) outs(%10 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %in_4: f32, %out: f32):
    %12 = arith.mulf %in, %in_4 : f32
    linalg.yield %12 : f32
  } -> tensor<3x5x37xf32>
  return %11 : tensor<3x5x37xf32>
}
