// REQUIRES: ptxas
// f32 softmax.attention through softmax-to-nvvm: ptxas accepts the kernels
// for sm_90 and sm_80 (format=bin) at both precisions, the PTX has the tf32
// tensor-core instructions (mma.sync m16n8k8, three per product when exact,
// one with attention-f32-precision=tf32), and an f32 linalg graph (what
// torch-mlir emits for an f32 model) is raised and reaches them too. The
// ROCDL pipeline refuses f32 attention with a diagnostic.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_80 format=bin" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=bin attention-f32-precision=tf32" | FileCheck %s --check-prefix=BIN
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa attention-f32-precision=tf32" | FileCheck %s --check-prefix=PTX
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | grep -o "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" | count 1536
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa attention-f32-precision=tf32" | grep -o "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" | count 768
// RUN: not softmax-opt %s --softmax-to-rocdl 2>&1 | FileCheck %s --check-prefix=ROCDL

// BIN-NOT: softmax.
// BIN-NOT: linalg.
// BIN-DAG: gpu.binary @attention_f32_kernel
// BIN-DAG: gpu.binary @linalg_attention_f32_kernel
// BIN-DAG: llvm.func @_mlir_ciface_attention_f32(
// PTX-DAG: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: cp.async.cg.shared.global
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: .entry linalg_attention_f32_kernel
// ROCDL: error: 'softmax.attention' op GPU attention mapping runs on f16 or bf16 tensor cores (f32 attention is NVIDIA only: CDNA's MFMA end has no f32 path), not 'f32' inputs

// Dynamic buffers, causal, d 128 (16 rows per warp and 8 warps when exact:
// 768 mma per tile and warp; tf32 32 rows: 512), and the linalg graph at d
// 64 (768 exact, 256 tf32).
func.func @attention_f32(%q: memref<?x?x?x128xf32>, %k: memref<?x?x?x128xf32>, %v: memref<?x?x?x128xf32>, %o: memref<?x?x?x128xf32>) attributes {llvm.emit_c_interface} {
  softmax.attention ins(%q, %k, %v : memref<?x?x?x128xf32>, memref<?x?x?x128xf32>, memref<?x?x?x128xf32>) outs(%o : memref<?x?x?x128xf32>) masked(zero) causal
  return
}

// A front end's f32 attention in linalg on tensors (Q K^T with K
// transposed by its map, a constant scale, linalg.softmax, P V), N 200.
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v = affine_map<(b, h, i, e, j) -> (b, h, j, e)>
#o = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#id = affine_map<(b, h, i, j) -> (b, h, i, j)>
func.func @linalg_attention_f32(%q: tensor<2x4x200x64xf32>, %k: tensor<2x4x200x64xf32>,
                                %v: tensor<2x4x200x64xf32>) -> tensor<2x4x200x64xf32> {
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<2x4x200x200xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%es : tensor<2x4x200x200xf32>) -> tensor<2x4x200x200xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>) outs(%sinit : tensor<2x4x200x200xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %mul = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %mul : f32
    linalg.yield %r : f32
  } -> tensor<2x4x200x200xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x4x200x200xf32>) outs(%es : tensor<2x4x200x200xf32>) {
  ^bb0(%a: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x4x200x200xf32>
  %pe = tensor.empty() : tensor<2x4x200x200xf32>
  %p = linalg.softmax dimension(3) ins(%x : tensor<2x4x200x200xf32>) outs(%pe : tensor<2x4x200x200xf32>) -> tensor<2x4x200x200xf32>
  %eo = tensor.empty() : tensor<2x4x200x64xf32>
  %oinit = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x4x200x64xf32>) -> tensor<2x4x200x64xf32>
  %o = linalg.generic {indexing_maps = [#p, #v, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x4x200x200xf32>, tensor<2x4x200x64xf32>) outs(%oinit : tensor<2x4x200x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %mul = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %mul : f32
    linalg.yield %r : f32
  } -> tensor<2x4x200x64xf32>
  return %o : tensor<2x4x200x64xf32>
}
