// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir (softmax_broadcast)
// Form: max and sum materialized by explicit broadcast generics; -inf max seed, -0.0 sum seed,
//  maximumf(%out, %in)
// Edits: util.func public -> func.func; util.return -> return; renamed; 12x128x128 -> 3x5x37,
//  12x128 -> 3x5.
// Semantics: softmax over dimension 2 of tensor<3x5x37xf32>.

// CHECK-LABEL: func.func @iree_raise_softmax_broadcast(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<3x5x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_raise_softmax_broadcast(%93 : tensor<3x5x37xf32>) -> (tensor<3x5x37xf32>) {
  %cst_16 = arith.constant 0xFF800000 : f32
  %cst_18 = arith.constant -0.000000e+00 : f32
  %94 = tensor.empty() : tensor<3x5xf32>
  %95 = linalg.fill ins(%cst_16 : f32) outs(%94 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %96 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%93 : tensor<3x5x37xf32>) outs(%95 : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2460 = arith.maximumf %out, %in : f32
    linalg.yield %2460 : f32
  } -> tensor<3x5xf32>
  %97 = tensor.empty() : tensor<3x5x37xf32>
  %98 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%96 : tensor<3x5xf32>) outs(%97 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x5x37xf32>
  %99 = tensor.empty() : tensor<3x5x37xf32>
  %100 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%93, %98 : tensor<3x5x37xf32>, tensor<3x5x37xf32>) outs(%99 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %in_261: f32, %out: f32):
    %2460 = arith.subf %in, %in_261 : f32
    linalg.yield %2460 : f32
  } -> tensor<3x5x37xf32>
  %101 = tensor.empty() : tensor<3x5x37xf32>
  %102 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%100 : tensor<3x5x37xf32>) outs(%101 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2460 = math.exp %in : f32
    linalg.yield %2460 : f32
  } -> tensor<3x5x37xf32>
  %103 = tensor.empty() : tensor<3x5xf32>
  %104 = linalg.fill ins(%cst_18 : f32) outs(%103 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %105 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%102 : tensor<3x5x37xf32>) outs(%104 : tensor<3x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2460 = arith.addf %out, %in : f32
    linalg.yield %2460 : f32
  } -> tensor<3x5xf32>
  %106 = tensor.empty() : tensor<3x5x37xf32>
  %107 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%105 : tensor<3x5xf32>) outs(%106 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x5x37xf32>
  %108 = tensor.empty() : tensor<3x5x37xf32>
  %109 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%102, %107 : tensor<3x5x37xf32>, tensor<3x5x37xf32>) outs(%108 : tensor<3x5x37xf32>) {
  ^bb0(%in: f32, %in_261: f32, %out: f32):
    %2460 = arith.divf %in, %in_261 : f32
    linalg.yield %2460 : f32
  } -> tensor<3x5x37xf32>
  return %109 : tensor<3x5x37xf32>
}
