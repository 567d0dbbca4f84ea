// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir (softmax_maxnumf)
// Form: 2-D, arith.maxnumf max
// Edits: util.func public -> func.func; util.return -> return; renamed; tensor<2x4xf32> ->
//  tensor<3x37xf32>, tensor<2xf32> -> tensor<3xf32>.
// Semantics: softmax over dimension 1 of tensor<3x37xf32>.

// CHECK-LABEL: func.func @iree_raise_softmax_maxnumf(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<3x37xf32>) outs(%{{.*}}) dimension(1)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_raise_softmax_maxnumf(%src : tensor<3x37xf32>) -> (tensor<3x37xf32>) {
  %cst0 = arith.constant 0.000000e+00 : f32
  %cstlow = arith.constant -3.40282347E+38 : f32
  %e1 = tensor.empty() : tensor<3xf32>
  %e2 = tensor.empty() : tensor<3x37xf32>
  %fillmax = linalg.fill ins(%cstlow : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%src : tensor<3x37xf32>) outs(%fillmax : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  %sub = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%src, %max : tensor<3x37xf32>, tensor<3xf32>) outs(%e2 : tensor<3x37xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<3x37xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sub : tensor<3x37xf32>) outs(%e2 : tensor<3x37xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<3x37xf32>
  %fillsum = linalg.fill ins(%cst0 : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<3x37xf32>) outs(%fillsum : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  %div = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<3x37xf32>, tensor<3xf32>) outs(%e2 : tensor<3x37xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<3x37xf32>
  return %div : tensor<3x37xf32>
}
