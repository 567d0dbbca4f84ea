// RUN: softmax-opt %s --softmax-raise | FileCheck %s
//
// Origin: iree-org/iree@b48a5955575cf8924ffc191f3b0804976e5738b9:compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir (softmax_no_rcp)
// Form: f16 throughout, -65504 max seed, divf by the sum
// Edits: util.func public -> func.func; util.return -> return; renamed; tensor<10x4096x4096xf16>
//  -> tensor<2x5x37xf16>, tensor<10x4096xf16> -> tensor<2x5xf16>.
// Semantics: softmax over dimension 2 of tensor<2x5x37xf16>.

// CHECK-LABEL: func.func @iree_raise_softmax_no_rcp_f16(
// CHECK-NOT: math.exp
// CHECK: softmax.softmax ins(%{{.*}} : tensor<2x5x37xf16>) outs(%{{.*}}) dimension(2)
// CHECK-NOT: math.exp
// CHECK: return

func.func @iree_raise_softmax_no_rcp_f16(%src : tensor<2x5x37xf16>) -> (tensor<2x5x37xf16>) {
  %cst_158 = arith.constant -6.550400e+04 : f16
  %cst_121 = arith.constant 0.000000e+00 : f16
  %224 = tensor.empty() : tensor<2x5xf16>
  %216 = tensor.empty() : tensor<2x5x37xf16>
  %225 = linalg.fill ins(%cst_158 : f16) outs(%224 : tensor<2x5xf16>) -> tensor<2x5xf16>
  %226 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%src : tensor<2x5x37xf16>) outs(%225 : tensor<2x5xf16>) {
  ^bb0(%in: f16, %out: f16):
    %5290 = arith.maximumf %in, %out : f16
    linalg.yield %5290 : f16
  } -> tensor<2x5xf16>
  %227 = linalg.generic
  {indexing_maps = [
    affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
    affine_map<(d0, d1, d2) -> (d0, d1)>,
    affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
    iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%src, %226 : tensor<2x5x37xf16>, tensor<2x5xf16>) outs(%216 : tensor<2x5x37xf16>) {
  ^bb0(%in: f16, %in_1572: f16, %out: f16):
    %5290 = arith.subf %in, %in_1572 : f16
    linalg.yield %5290 : f16
  } -> tensor<2x5x37xf16>
  %228 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%227 : tensor<2x5x37xf16>) outs(%216 : tensor<2x5x37xf16>) {
  ^bb0(%in: f16, %out: f16):
    %5290 = math.exp %in : f16
    linalg.yield %5290 : f16
  } -> tensor<2x5x37xf16>
  %229 = tensor.empty() : tensor<2x5xf16>
  %230 = linalg.fill ins(%cst_121 : f16) outs(%229 : tensor<2x5xf16>) -> tensor<2x5xf16>
  %231 = linalg.generic
  {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
  iterator_types = ["parallel", "parallel", "reduction"]}
  ins(%228 : tensor<2x5x37xf16>) outs(%230 : tensor<2x5xf16>) {
  ^bb0(%in: f16, %out: f16):
    %5290 = arith.addf %in, %out : f16
    linalg.yield %5290 : f16
  } -> tensor<2x5xf16>
  %232 = linalg.generic
  {indexing_maps = [
    affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
    affine_map<(d0, d1, d2) -> (d0, d1)>,
    affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
    iterator_types = ["parallel", "parallel", "parallel"]}
    ins(%228, %231 : tensor<2x5x37xf16>, tensor<2x5xf16>) outs(%216 : tensor<2x5x37xf16>) {
  ^bb0(%in: f16, %in_1572: f16, %out: f16):
    %5290 = arith.divf %in, %in_1572 : f16
    linalg.yield %5290 : f16
  } -> tensor<2x5x37xf16>
  return %232 : tensor<2x5x37xf16>
}
