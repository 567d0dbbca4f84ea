// REQUIRES: ptxas
// softmax.attention through softmax-to-nvvm: ptxas accepts the kernel for
// sm_90 and sm_80 (format=bin), and the PTX has the tensor-core and
// ldmatrix instructions the mapping meant; a linalg graph is raised first.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_80 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX

// BIN-NOT: softmax.
// BIN-NOT: linalg.
// BIN-DAG: gpu.binary @attention_kernel
// BIN-DAG: llvm.func @_mlir_ciface_attention(
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: ex2.approx
func.func @attention(%q: memref<?x?x?x64xbf16>, %k: memref<?x?x?x64xbf16>, %v: memref<?x?x?x64xbf16>, %o: memref<?x?x?x64xbf16>) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>, memref<?x?x?x64xbf16>) outs(%o : memref<?x?x?x64xbf16>) masked(zero) causal window(128)
  return
}

// A front end's bf16 attention in linalg on tensors (Q K^T with K
// transposed by its map, a constant scale, linalg.softmax, P V): the
// pipeline raises it and maps it onto the same tensor-core kernel.
// BIN-DAG: gpu.binary @linalg_attention_kernel
// PTX-DAG: .entry linalg_attention_kernel
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
func.func @linalg_attention(%q: tensor<2x4x256x64xbf16>, %k: tensor<2x4x256x64xbf16>,
                            %v: tensor<2x4x256x64xbf16>) -> tensor<2x4x256x64xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x4x256x256xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x256x256xf32>) -> tensor<2x4x256x256xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x256x64xbf16>, tensor<2x4x256x64xbf16>) outs(%sinit : tensor<2x4x256x256xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %mul = arith.mulf %a32, %b32 : f32
    %r = arith.addf %acc, %mul : f32
    linalg.yield %r : f32
  } -> tensor<2x4x256x256xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x256x256xf32>) outs(%es : tensor<2x4x256x256xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x4x256x256xf32>
  %pe = tensor.empty() : tensor<2x4x256x256xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x4x256x256xf32>) outs(%pe : tensor<2x4x256x256xf32>) -> tensor<2x4x256x256xf32>
  %eo = tensor.empty() : tensor<2x4x256x64xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x256x64xf32>) -> tensor<2x4x256x64xf32>
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x4x256x256xf32>, tensor<2x4x256x64xbf16>) outs(%oinit : tensor<2x4x256x64xf32>) {
  ^bb0(%a: f32, %b: bf16, %acc: f32):
    %b32 = arith.extf %b : bf16 to f32
    %mul = arith.mulf %a, %b32 : f32
    %r = arith.addf %acc, %mul : f32
    linalg.yield %r : f32
  } -> tensor<2x4x256x64xf32>
  return %o : tensor<2x4x256x64xf32>
}
