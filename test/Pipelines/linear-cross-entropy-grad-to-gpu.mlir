// softmax.linear_cross_entropy_grad through softmax-to-nvvm: bufferized in
// place (on tensors it writes its inits), mapped to its kernels (no host
// code computes it), PTX for sm_90: the weights kernel, the tile kernel
// (cp.async slices, ldmatrix plain and transposed, mma.sync bf16, the
// block vote on shared memory, f32 atomics into the accumulators), the
// rounds. softmax-to-rocdl refuses it: the CDNA end has no products by
// inner rows yet.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// RUN: not softmax-opt %s --softmax-to-rocdl="chip=gfx942 format=isa" 2>&1 | FileCheck %s --check-prefix=CDNA
// On sm_90a the chunked form: the host loops over the chunks of classes,
// each on a stream of its own; its kernels' warpgroup products, the
// logits' K-major (trans 0, 0), du W's with B by inner rows (0, 1), du^T
// h's with both (1, 1), every operand by bulk tensor copies.
// RUN: softmax-opt %s --softmax-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX90A

// PTX-NOT: softmax.
// PTX: llvm.call @mgpuMemAlloc
// PTX: llvm.call @mgpuMemset32
// PTX: gpu.binary @grad_kernel
// PTX: gpu.binary @grad_kernel_0
// PTX-SAME: cp.async.cg.shared.global
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-SAME: red.global.add.v2.f32
// PTX: gpu.binary @grad_kernel_1
// PTX: gpu.binary @grad_kernel_2
// PTX90A-COUNT-6: llvm.call @mgpuTensorMapEncodeTiledMemref
// PTX90A: llvm.call @mgpuStreamCreate
// PTX90A: llvm.call @mgpuStreamSynchronize
// PTX90A: gpu.binary @grad_kernel_0
// PTX90A-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  0;
// PTX90A-NOT: red.global
// PTX90A: gpu.binary @grad_kernel_1
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 0,  1;
// PTX90A: gpu.binary @grad_kernel_2
// PTX90A-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, p, 1,  1, 1,  1;
// PTX90A: gpu.binary @grad_kernel_3
// CDNA: error: 'softmax.linear_cross_entropy_grad' op has no GPU kernel for 'bf16' inputs on gfx942
func.func @grad(%h: tensor<512x256xbf16>, %w: tensor<32000x256xbf16>, %t: tensor<512xi64>, %lse: tensor<512xf32>, %dl: tensor<f32>, %gh0: tensor<512x256xbf16>, %gw0: tensor<32000x256xbf16>) -> (tensor<512x256xbf16>, tensor<32000x256xbf16>) {
  %gh, %gw = softmax.linear_cross_entropy_grad ins(%h, %w, %t, %lse, %dl : tensor<512x256xbf16>, tensor<32000x256xbf16>, tensor<512xi64>, tensor<512xf32>, tensor<f32>) outs(%gh0, %gw0 : tensor<512x256xbf16>, tensor<32000x256xbf16>) reduction(mean)
  return %gh, %gw : tensor<512x256xbf16>, tensor<32000x256xbf16>
}
