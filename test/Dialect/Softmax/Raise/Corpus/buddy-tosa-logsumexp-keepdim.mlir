// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: buddy-compiler/buddy-mlir@080e518cb5912bf6a1d63e1bc814359a30c2f3e4:examples/BuddyNext/next-gqa-attention.mlir (kernel, %167 .. %172: the logsumexp of the masked scores)
// Converted from Inputs/buddy-tosa-logsumexp-keepdim.tosa.mlir with: mlir-opt
//  --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor,convert-elementwise-to-linalg))'
// Form: logsumexp with keepdim [..,1] results: reduce_max, sub, math.exp on a tensor, reduce_sum,
//  log, add
// Edits: the logsumexp of the scaled, masked scores cut out of @kernel: %166 is the argument, %172
//  (max + log(sum(exp(x - max))), the LSE that the kernel then subtracts) the result; 12 heads ->
//  6, cache length 1024 -> 37; after conversion, the dead tosa.const_shape ops (operands of the
//  converted tosa.reshape ops) deleted.
// Semantics: logsumexp over dimension 2 of tensor<6x1x37xf32>.

// CHECK-LABEL: func.func @buddy_logsumexp_keepdim(
// CHECK-NOT: math.exp
// CHECK: softmax.logsumexp ins(%{{.*}} : tensor<6x1x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @buddy_logsumexp_keepdim(%arg0: tensor<6x1x37xf32>) -> tensor<6x1x1xf32> {
  %0 = tensor.empty() : tensor<6x1xf32>
  %cst = arith.constant -3.40282347E+38 : f32
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<6x1xf32>) -> tensor<6x1xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<6x1x37xf32>) outs(%1 : tensor<6x1xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %11 = arith.maximumf %in, %init : f32
      linalg.yield %11 : f32
    }
  %expanded = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [6, 1, 1] : tensor<6x1xf32> into tensor<6x1x1xf32>
  %2 = tensor.empty() : tensor<6x1x37xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %expanded : tensor<6x1x37xf32>, tensor<6x1x1xf32>) outs(%2 : tensor<6x1x37xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %11 = arith.subf %in, %in_3 : f32
    linalg.yield %11 : f32
  } -> tensor<6x1x37xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3 : tensor<6x1x37xf32>) outs(%3 : tensor<6x1x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %11 = math.exp %in : f32
    linalg.yield %11 : f32
  } -> tensor<6x1x37xf32>
  %5 = tensor.empty() : tensor<6x1xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %6 = linalg.fill ins(%cst_0 : f32) outs(%5 : tensor<6x1xf32>) -> tensor<6x1xf32>
  %reduced_1 = linalg.reduce ins(%4 : tensor<6x1x37xf32>) outs(%6 : tensor<6x1xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %11 = arith.addf %in, %init : f32
      linalg.yield %11 : f32
    }
  %expanded_2 = tensor.expand_shape %reduced_1 [[0], [1, 2]] output_shape [6, 1, 1] : tensor<6x1xf32> into tensor<6x1x1xf32>
  %7 = tensor.empty() : tensor<6x1x1xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_2 : tensor<6x1x1xf32>) outs(%7 : tensor<6x1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %11 = math.log %in : f32
    linalg.yield %11 : f32
  } -> tensor<6x1x1xf32>
  %9 = tensor.empty() : tensor<6x1x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %8 : tensor<6x1x1xf32>, tensor<6x1x1xf32>) outs(%9 : tensor<6x1x1xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %11 = arith.addf %in, %in_3 : f32
    linalg.yield %11 : f32
  } -> tensor<6x1x1xf32>
  return %10 : tensor<6x1x1xf32>
}
