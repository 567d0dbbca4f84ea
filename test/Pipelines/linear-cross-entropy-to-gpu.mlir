// softmax.linear_cross_entropy through softmax-to-nvvm and softmax-to-rocdl:
// bufferized in place, mapped to its three kernels (no host code computes
// it), PTX for sm_90 with the tensor-core tiles (cp.async slices, ldmatrix,
// mma.sync bf16) and the fold's ex2.approx, AMDGPU assembly for gfx942 with
// MFMA; cross-entropy-vocab-splits reaches the mapping. On sm_90a the logit
// tiles come by bulk tensor copies and multiply on wgmma, and the host
// encodes the tensor maps through the runtime.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=WGMMA
// RUN: softmax-opt %s --softmax-to-rocdl="chip=gfx942 format=isa" | FileCheck %s --check-prefix=ISA
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 cross-entropy-vocab-splits=3" --mlir-print-ir-after=softmax-map-to-gpu 2>&1 | FileCheck %s --check-prefix=SPLITS
// RUN: not softmax-opt %s --softmax-to-nvvm="chip=sm_90 cross-entropy-vocab-splits=5000" 2>&1 | FileCheck %s --check-prefix=RANGE

// PTX-NOT: softmax.
// PTX: gpu.binary @head_kernel
// PTX-SAME: cp.async.cg.shared.global
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-SAME: ex2.approx.ftz.f32
// PTX-SAME: bar.sync
// PTX: gpu.binary @head_kernel_0
// PTX: gpu.binary @head_kernel_1
// WGMMA-NOT: softmax.
// WGMMA: llvm.call @mgpuTensorMapEncodeTiledMemref(
// WGMMA: llvm.call @mgpuTensorMapEncodeTiledMemref(
// WGMMA: gpu.binary @head_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx81">
// WGMMA-SAME: .target sm_90a
// WGMMA-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// WGMMA-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// WGMMA-NOT: mma.sync.aligned
// WGMMA: gpu.binary @head_kernel_0
// ISA-NOT: softmax.
// ISA: gpu.binary @head_kernel  [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// ISA-SAME: v_mfma_f32_16x16x16{{_?}}bf16
// ISA-SAME: s_barrier
// SPLITS: vocab_splits = 3
// RANGE: error: softmax-to-nvvm: cross-entropy-vocab-splits must be 0 (the balance model's) or from 1 to 4096, not 5000
func.func @head(%h: tensor<512x256xbf16>, %w: tensor<32000x256xbf16>, %t: tensor<512xi64>, %l0: tensor<f32>, %s0: tensor<512xf32>) -> (tensor<f32>, tensor<512xf32>) {
  %l, %s = softmax.linear_cross_entropy ins(%h, %w, %t : tensor<512x256xbf16>, tensor<32000x256xbf16>, tensor<512xi64>) outs(%l0 : tensor<f32>) lse(%s0 : tensor<512xf32>) reduction(mean)
  return %l, %s : tensor<f32>, tensor<512xf32>
}
