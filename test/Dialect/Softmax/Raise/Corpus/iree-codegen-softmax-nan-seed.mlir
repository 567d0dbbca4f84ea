// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/Codegen/LLVMCPU/test/pipeline_tests.mlir (softmax_dynamic_with_assume_int_hints)
// Form: max seeded with NaN (0xFFC00000) under arith.maxnumf; exp recomputed in the sum and in the
//  normalization
// Edits: renamed; the dispatch's HAL bindings, push constants, util.assume.int and dispatch.tensor
//  load/store removed: the loaded tensor (%27) is the argument, the stored one (%34) the result;
//  tensor<?x?x?xf32> -> tensor<2x3x37xf32>, tensor<?x?xf32> -> tensor<2x3xf32>;
//  tensor.empty(%dims) -> tensor.empty().
// Semantics: softmax over dimension 2 of tensor<2x3x37xf32>.

// CHECK-LABEL: func.func @iree_codegen_softmax_nan_seed(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<2x3x37xf32>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @iree_codegen_softmax_nan_seed(%27: tensor<2x3x37xf32>) -> tensor<2x3x37xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFFC00000 : f32
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %28 = tensor.empty() : tensor<2x3x37xf32>
  %dim = tensor.dim %27, %c0 : tensor<2x3x37xf32>
  %dim_1 = tensor.dim %27, %c1 : tensor<2x3x37xf32>
  %29 = tensor.empty() : tensor<2x3xf32>
  %30 = linalg.fill ins(%cst_0 : f32) outs(%29 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %31 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%27 : tensor<2x3x37xf32>) outs(%30 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %35 = arith.maxnumf %in, %out : f32
    linalg.yield %35 : f32
  } -> tensor<2x3xf32>
  %32 = linalg.fill ins(%cst : f32) outs(%29 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %33 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%27, %31 : tensor<2x3x37xf32>, tensor<2x3xf32>) outs(%32 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %35 = arith.subf %in, %in_2 : f32
    %36 = math.exp %35 : f32
    %37 = arith.addf %36, %out : f32
    linalg.yield %37 : f32
  } -> tensor<2x3xf32>
  %34 = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27, %31, %33 : tensor<2x3x37xf32>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%28 : tensor<2x3x37xf32>) {
  ^bb0(%in: f32, %in_2: f32, %in_3: f32, %out: f32):
    %35 = arith.subf %in, %in_2 : f32
    %36 = math.exp %35 : f32
    %37 = arith.divf %36, %in_3 : f32
    linalg.yield %37 : f32
  } -> tensor<2x3x37xf32>
  return %34 : tensor<2x3x37xf32>
}
